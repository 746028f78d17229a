// Which folder may import which: the layers of the site and of the registration wing (docs/architecture.md,
// "Layers of the registration wing" and "Lint rules"). `npm run lint` runs it after eslint. Type-only imports count
// everywhere (tsPreCompilationDeps): a type still ties two folders together.

/** The parts of the registration wing, bottom to top, above src/registrations/core/. */
const WING = "^src/registrations/";
const part = (names) => `${WING}(${names.join("|")})/`;

/** Foundations: src/http, src/db, src/email, src/cache and the top-level src/*.ts(x) but the composition roots. */
const FOUNDATIONS = "^src/(http|db|email|cache)/|^src/(?!(app|server)\\.tsx?$)[^/]+\\.tsx?$";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "A circle of imports (type-only ones too) makes start-up depend on which module is imported first, and with " +
        "a top-level await it can hang for good. Move what both sides need to the lower module or a small new one.",
      severity: "error",
      from: { path: "^(src|components|views|widgets)/" },
      to: { circular: true },
    },
    {
      name: "wing-core-imports-no-part",
      comment:
        "src/registrations/core/ is the wing's kernel: every part builds on it, so it imports no part " +
        "(money, waitlist, booking, changes, balances) and not the wing's routes.ts.",
      severity: "error",
      from: { path: `${WING}core/` },
      to: { path: [part(["money", "waitlist", "booking", "changes", "balances"]), `${WING}routes\\.tsx?$`] },
    },
    {
      name: "wing-money-imports-only-core",
      comment: "src/registrations/money/ holds the helpers every part uses, so it imports of the wing only core/.",
      severity: "error",
      from: { path: `${WING}money/` },
      to: { path: WING, pathNot: `${WING}(core|money)/` },
    },
    {
      name: "wing-waitlist-below-booking",
      comment: "The waiting list sits under booking, changes and balances: it imports none of them.",
      severity: "error",
      from: { path: `${WING}waitlist/` },
      to: { path: part(["booking", "changes", "balances"]) },
    },
    {
      name: "wing-booking-below-changes",
      comment: "Booking (holds, checkout, confirmation) sits under changes and balances: it imports neither.",
      severity: "error",
      from: { path: `${WING}booking/` },
      to: { path: part(["changes", "balances"]) },
    },
    {
      name: "wing-changes-below-balances",
      comment: "Self-service changes sit under the scheduled balance charges: changes/ does not import balances/.",
      severity: "error",
      from: { path: `${WING}changes/` },
      to: { path: part(["balances"]) },
    },
    {
      name: "wing-routes-ts-on-top",
      comment: "src/registrations/routes.ts is the wing's composition root: no folder of the wing imports it.",
      severity: "error",
      from: { path: `${WING}[^/]+/` },
      to: { path: `${WING}routes\\.tsx?$` },
    },
    {
      name: "wing-no-other-parts-routes",
      comment:
        "A part's routes/ folder is its HTTP edge, wired only by src/registrations/routes.ts: another part imports " +
        "the use case, not the route. Move what both routes need to core/ (the route kit) or to the lower part.",
      severity: "error",
      from: { path: `${WING}([^/]+)/` },
      to: { path: `${WING}[^/]+/routes/`, pathNot: `${WING}$1/routes/` },
    },
    {
      name: "browser-imports-only-shared",
      comment:
        "views/, widgets/ and components/ render markup or run in the browser: from src/ they import only " +
        "src/shared/ (types too). Pass the data in as props, or move the pure part (schema, rule, text, type) into src/shared/.",
      severity: "error",
      from: { path: "^(views|widgets|components)/" },
      to: { path: "^src/", pathNot: "^src/shared/" },
    },
    {
      name: "shared-imports-only-itself",
      comment: "src/shared/ is the one browser-safe folder of src/: it imports only itself, so nothing server-only reaches a bundle.",
      severity: "error",
      from: { path: "^src/shared/" },
      to: { path: "^(src|components|views|widgets)/", pathNot: "^src/shared/" },
    },
    {
      name: "views-and-widgets-side-by-side",
      comment:
        "Pages (views/) and islands (widgets/) both build on components/ and never import each other: a page places " +
        "an island with <Widget name=...> and types its props with IslandProps; what both use moves to components/.",
      severity: "error",
      from: { path: "^(views|widgets)/" },
      to: { path: "^(views|widgets)/", pathNot: "^$1/" },
    },
    {
      name: "components-under-views-and-widgets",
      comment: "components/ sits under pages and islands: it imports no view and no widget.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^(views|widgets)/" },
    },
    {
      name: "foundations-import-no-feature",
      comment:
        "The foundations (src/http, src/db, src/email, src/cache, the top-level src/*.ts) serve every feature, so they " +
        "import none: a feature registers itself with them (a hook, a parameter), or the shared part moves down.",
      severity: "error",
      from: { path: FOUNDATIONS },
      to: { path: ["^src/[^/]+/", "^src/(app|server)\\.tsx?$"], pathNot: "^src/(shared|http|db|email|cache)/" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.d\\.ts$" },
    includeOnly: "^(src|components|views|widgets)/",
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"] },
    cache: false,
  },
};
