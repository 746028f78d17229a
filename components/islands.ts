import type { ComponentType } from "react";

/**
 * Every island's component by name, as types only. Empty here: widgets/islands.gen.ts (generated from
 * widgets/islands/) adds each island by declaration merging, so pages name an island and type its props without
 * importing widgets/; the server hands the components themselves to each page render (views/components/Widget.tsx).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging in widgets/islands.gen.ts
export interface IslandComponents {}
export type IslandName = Extract<keyof IslandComponents, string>;
export type IslandProps<N extends IslandName> = IslandComponents[N] extends ComponentType<infer P> ? P : never;
