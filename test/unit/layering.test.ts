// The import rules of .dependency-cruiser.cjs (run by `npm run lint`) bite: on a small tree (test/fixtures/layering/)
// each rule reports exactly the one import it is there for, and the site's own tree has no circle of imports.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseOptions, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FOLDERS = ["src", "components", "views", "widgets"];

let options: ICruiseOptions;
const tsConfig = extractTSConfig(path.join(root, "tsconfig.json"));

beforeAll(async () => {
  options = await extractDepcruiseOptions(path.join(root, ".dependency-cruiser.cjs"));
});

/** The project's rules over the folders of `baseDir`: each violation as "rule: from -> to". */
async function violations(baseDir: string): Promise<{ found: string[]; result: ICruiseResult }> {
  const { output } = await cruise(FOLDERS, { ...options, baseDir, outputType: "json" }, undefined, { tsConfig });
  const result = JSON.parse(output as string) as ICruiseResult;
  const found = (result.summary.violations ?? []).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
  return { found: found.sort(), result };
}

describe("the import rules", () => {
  it("report each refused import of the fixture tree by its own rule, and nothing else", async () => {
    const { found, result } = await violations(path.join(root, "test/fixtures/layering"));
    expect(found).toEqual([
      "browser-imports-only-shared: widgets/Probe.ts -> src/http/errors.ts",
      "components-under-views-and-widgets: components/Box.ts -> views/layout.ts",
      "foundations-import-no-feature: src/db/pool.ts -> src/events/a.ts",
      "no-circular: src/events/a.ts -> src/events/b.ts",
      "shared-imports-only-itself: src/shared/leak.ts -> src/http/errors.ts",
      "views-and-widgets-side-by-side: views/Page.ts -> widgets/Probe.ts",
      "wing-booking-beside-balances: src/registrations/balances/charge.ts -> src/registrations/booking/hold.ts",
      "wing-booking-beside-balances: src/registrations/booking/checkout.ts -> src/registrations/balances/charge.ts",
      "wing-changes-below-booking-and-balances: src/registrations/changes/cancel.ts -> src/registrations/balances/charge.ts",
      "wing-changes-below-booking-and-balances: src/registrations/changes/cancel.ts -> src/registrations/booking/hold.ts",
      "wing-composition-on-top: src/registrations/changes/undo.ts -> src/registrations/payments.ts",
      "wing-composition-on-top: src/registrations/changes/undo.ts -> src/registrations/routes.ts",
      "wing-core-imports-no-part: src/registrations/core/kernel.ts -> src/registrations/booking/hold.ts",
      "wing-no-other-parts-routes: src/registrations/changes/refund.ts -> src/registrations/waitlist/routes/join.ts",
      "wing-waitlist-lowest-part: src/registrations/waitlist/offers.ts -> src/registrations/booking/hold.ts",
    ]);
    // The circle closes only through b.ts's `import type`: type-only imports count.
    const b = result.modules.find((m) => m.source === "src/events/b.ts");
    expect(b?.dependencies).toEqual([expect.objectContaining({ resolved: "src/events/a.ts", circular: true, dependencyTypes: expect.arrayContaining(["type-only"]) as string[] })]);
  });

  it("find no circle of imports in the site's own tree, type-only imports included", async () => {
    const { found } = await violations(root);
    expect(found.filter((v) => v.startsWith("no-circular:"))).toEqual([]);
  });
});
