// house/refusals-by-reason: a route or use case decides on a refusal by its reason code (DomainError.reason) or its
// kind, never by comparing an error's message with a sentence: a reworded text would silently change the decision.
// Flags `x.message === ...` (and !==, ==, !=), `x.message.includes/startsWith/endsWith/match(...)` and
// `/re/.test(x.message)`.

/** @type {import("eslint").Rule.RuleModule} */
export default {
  meta: {
    type: "problem",
    docs: { description: "decide on a refusal by its reason code, not by its message" },
    schema: [],
    messages: {
      byMessage:
        "Decides by an error's message text: give the DomainError a reason code (src/errors.ts) and compare `err.reason` instead.",
    },
  },
  create(context) {
    const isMessage = (node) => node?.type === "MemberExpression" && !node.computed && node.property.name === "message";
    const unwrap = (node) => (node?.type === "TSAsExpression" || node?.type === "TSNonNullExpression" || node?.type === "ChainExpression" ? unwrap(node.expression) : node);
    return {
      BinaryExpression(node) {
        if (!["===", "!==", "==", "!="].includes(node.operator)) return;
        if (isMessage(unwrap(node.left)) || isMessage(unwrap(node.right))) context.report({ node, messageId: "byMessage" });
      },
      CallExpression(node) {
        const callee = unwrap(node.callee);
        if (callee?.type !== "MemberExpression" || callee.computed) return;
        const method = callee.property.name;
        if (["includes", "startsWith", "endsWith", "match"].includes(method) && isMessage(unwrap(callee.object))) {
          context.report({ node, messageId: "byMessage" });
        } else if (["test", "exec"].includes(method) && node.arguments.some((a) => isMessage(unwrap(a)))) {
          context.report({ node, messageId: "byMessage" });
        }
      },
    };
  },
};
