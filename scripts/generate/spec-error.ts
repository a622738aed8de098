/**
 * A spec `npm run generate` refuses: its message is the whole report, one line per problem, each
 * `file:line:column: message` where the place is known. The command prints it without a stack.
 */
export class SpecError extends Error {
  /** Joins the lines of several checks into one error, in the order given. */
  static of(lines: readonly string[]): SpecError {
    return new SpecError(lines.join('\n'));
  }
}
