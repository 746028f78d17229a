// React for the islands, loaded by boot.ts with the first widget that starts (its own chunk, preloaded only
// on pages whose widgets start at once).
export { createElement, useEffect } from "react";
export { hydrateRoot } from "react-dom/client";
