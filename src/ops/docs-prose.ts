/**
 * The /docs page's Swagger UI plugin that puts a document's operations before its prose. Each
 * document's `info.description` is a long read (versioning, negotiation, paging, errors: up to
 * 5,000 characters) that Swagger UI prints in full above the first operation, which a reader then
 * has to scroll to. The plugin keeps the description's first paragraph under the title (what the API
 * is) and folds the rest into a closed <details> whose summary names its sections, so the
 * operations start within the first screen and the prose is one click away. Browser JavaScript, as
 * text: it runs in the page, inline, allowed by its hash like the page's other script.
 */
export const DOCS_PROSE_PLUGIN = `
      // The lead: the first paragraph, unless it is a heading or a list, or introduces what follows.
      function splitProse(text) {
        const blocks = String(text || '').trim().split(/\\n\\s*\\n/);
        const first = blocks[0] || '';
        const lead = /^[#*>-]|:$/.test(first.trim()) ? '' : first;
        return { lead, rest: (lead ? blocks.slice(1) : blocks).join('\\n\\n').trim() };
      }
      function ProseAfterOperationsPlugin() {
        return {
          statePlugins: {
            spec: {
              wrapSelectors: {
                // What Swagger UI's own info block (OpenAPI 3.1) prints as the description.
                selectInfoDescriptionField: (original) => (...args) => splitProse(original(...args)).lead,
              },
            },
          },
          wrapComponents: {
            // InfoContainer, not info: for OpenAPI 3.1 Swagger UI swaps the whole container for its OAS31Info.
            InfoContainer: (Original, system) => (props) => {
              const React = system.React;
              const info = system.specSelectors.info();
              const { rest } = splitProse(info && info.get('description'));
              if (!rest) return React.createElement(Original, props);
              const sections = rest
                .split('\\n')
                .filter((line) => /^#{1,6} /.test(line))
                .map((line) => line.replace(/^#+ /, '').replace(/\`/g, ''));
              const Markdown = system.getComponent('Markdown', true);
              return React.createElement(
                React.Fragment,
                null,
                React.createElement(Original, props),
                React.createElement(
                  'details',
                  { className: 'sf-about' },
                  React.createElement('summary', null, sections.length ? 'About this API: ' + sections.join(' · ') : 'More about this API'),
                  React.createElement(Markdown, { source: rest }),
                ),
              );
            },
          },
        };
      }`;
