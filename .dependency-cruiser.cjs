// Which folder may import which: the layers of the site and of the registration wing (docs/architecture.md,
// "Layers of the registration wing" and "Lint rules"). `npm run lint` runs it after eslint. Type-only imports count
// everywhere (tsPreCompilationDeps): a type still ties two folders together.

/** The registration wing: core/ (with core/money/), then its parts bottom to top: waitlist/, changes/, booking/ and balances/ side by side. */
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
        "src/registrations/core/ is the wing's kernel (with core/money/, the helpers every part uses to prepare a " +
        "PaymentIntent, hold or release a code's use and price a deposit): every part builds on it, so it imports no " +
        "part and neither composition root (routes.ts, payments.ts).",
      severity: "error",
      from: { path: `${WING}core/` },
      to: { path: [part(["waitlist", "booking", "changes", "balances"]), `${WING}(routes|payments)\\.tsx?$`] },
    },
    {
      name: "wing-waitlist-lowest-part",
      comment: "The waiting list is the lowest part: changes, booking and balances tell it of freed places; it imports none of them.",
      severity: "error",
      from: { path: `${WING}waitlist/` },
      to: { path: part(["changes", "booking", "balances"]) },
    },
    {
      name: "wing-changes-below-booking-and-balances",
      comment:
        "changes/ owns what happens to a registration once made (its private links, refunds, changes, family links): " +
        "booking and balances use it, so it imports neither.",
      severity: "error",
      from: { path: `${WING}changes/` },
      to: { path: part(["booking", "balances"]) },
    },
    {
      name: "wing-booking-beside-balances",
      comment: "Booking (holds, checkout, confirmation) and balances (the scheduled charges) sit side by side at the top: neither imports the other.",
      severity: "error",
      from: { path: `${WING}(booking|balances)/` },
      to: { path: part(["booking", "balances"]), pathNot: `${WING}$1/` },
    },
    {
      name: "wing-composition-on-top",
      comment: "routes.ts (the routers) and payments.ts (the payment kinds) compose the wing: no folder of the wing imports them.",
      severity: "error",
      from: { path: `${WING}[^/]+/` },
      to: { path: `${WING}(routes|payments)\\.tsx?$` },
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
