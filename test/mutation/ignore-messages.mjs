import { declareValuePlugin, PluginKind } from "@stryker-mutator/api/plugin";

// A Stryker ignorer (docs/mutation.md): the message of a DomainError, `new DomainError(code,
// message, details)`, is not mutated. It is prose for people; clients act on the code and the
// details (docs/api.md "Envelope and errors"), and the tests assert those, never the wording
// (test/README.md). Everything else in the call, the code and the details (field, scope,
// retryAfter...), is mutated as usual.
export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, "DomainErrorMessage", {
    shouldIgnore(path) {
      const call = path.parentPath;
      const isMessage =
        call?.isNewExpression() &&
        call.node.callee.type === "Identifier" &&
        call.node.callee.name === "DomainError" &&
        call.node.arguments[1] === path.node;
      return isMessage ? "the message of a DomainError is prose: clients and tests use its code and details" : undefined;
    },
  }),
];
