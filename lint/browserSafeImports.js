// house/browser-safe-imports: code that may run in the browser or render a page (widgets/, views/ and src/shared/)
// imports from src/ only src/shared/, types included: the pages and islands depend on one folder, and that folder
// depends on nothing of the server.
import path from "node:path";

/** @type {import("eslint").Rule.RuleModule} */
export default {
  meta: {
    type: "problem",
    docs: { description: "widgets/, views/ and src/shared/ import from src/ only src/shared/" },
    schema: [
      {
        type: "object",
        properties: {
          root: { type: "string" },
          shared: { type: "string" },
        },
        required: ["root", "shared"],
        additionalProperties: false,
      },
    ],
    messages: {
      serverOnly:
        "{{target}} is outside src/shared/: widgets/, views/ and src/shared/ import from src/ only src/shared/. " +
        "Pass the data in as props, or move the pure part (schema, rule, text, type) into src/shared/.",
    },
  },
  create(context) {
    const { root, shared } = context.options[0];
    const src = path.join(root, "src") + path.sep;
    const sharedDir = path.join(root, shared) + path.sep;
    const here = context.physicalFilename;

    function check(source) {
      if (typeof source?.value !== "string" || !source.value.startsWith(".")) return;
      const target = path.resolve(path.dirname(here), source.value);
      if (!target.startsWith(src) || target.startsWith(sharedDir)) return;
      const name = path.relative(root, target).split(path.sep).join("/");
      context.report({ node: source, messageId: "serverOnly", data: { target: name } });
    }

    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => node.source && check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
