import React from "react";

export type ReactBuild = "production" | "development";

/**
 * The React build this process renders with. React picks it from NODE_ENV when it is first imported (so before
 * config.ts runs), and the development build is several times slower at rendering. Only that build has `act`.
 */
export function reactBuild(): ReactBuild {
  return typeof (React as { act?: unknown }).act === "function" ? "development" : "production";
}
