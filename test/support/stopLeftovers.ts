/**
 * A setup file of every test project: after each test file, whatever browsers and processes its tests started and
 * did not stop (a test that failed or timed out before its own cleanup) are stopped here.
 */
import { afterAll } from "vitest";
import { stopLeftovers } from "./children.ts";

afterAll(stopLeftovers);
