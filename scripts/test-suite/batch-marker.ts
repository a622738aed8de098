/** The name of the test batch.ts queues after each file's tests; run-batch.ts splits the output at it. */
export const END_OF_FILE = 'test-suite: end of ';
