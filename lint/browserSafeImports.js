// house/browser-safe-imports: code that may run in the browser (widgets/, views/ and the browser-safe
// modules themselves) imports from src/ only the browser-safe modules. Type-only imports are free: they
// are erased before anything runs.
import path from "node:path";

/** @type {import("eslint").Rule.RuleModule} */
export default {
  meta: {
    type: "problem",
    docs: { description: "widgets/ and views/ import only browser-safe modules from src/" },
    schema: [
      {
        type: "object",
        properties: {
          root: { type: "string" },
          browserSafe: { type: "array", items: { type: "string" } },
        },
        required: ["root", "browserSafe"],
        additionalProperties: false,
      },
    ],
    messages: {
      serverOnly:
        "{{target}} is server-only: widgets/, views/ and the browser-safe modules import from src/ only " +
        "browser-safe modules (BROWSER_SAFE in eslint.config.js). Pass the data in as props, move the pure part " +
        "into a browser-safe module, or import only types with `import type`.",
    },
  },
  create(context) {
    const { root, browserSafe } = context.options[0];
    const src = path.join(root, "src") + path.sep;
    const here = context.physicalFilename;
    const relative = (file) => path.relative(root, file).split(path.sep).join("/");

    function check(node, source, typeOnly) {
      if (typeOnly || typeof source?.value !== "string" || !source.value.startsWith(".")) return;
      const target = path.resolve(path.dirname(here), source.value);
      if (!target.startsWith(src)) return;
      const name = relative(target);
      if (browserSafe.some((glob) => path.matchesGlob(name, glob))) return;
      context.report({ node: source, messageId: "serverOnly", data: { target: name } });
    }

    const allTypes = (node) =>
      node.importKind === "type" ||
      node.exportKind === "type" ||
      (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === "type" || s.exportKind === "type"));

    return {
      ImportDeclaration: (node) => check(node, node.source, allTypes(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source, allTypes(node)),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === "type"),
      ImportExpression: (node) => check(node, node.source, false),
    };
  },
};
