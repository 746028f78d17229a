/** Where accepted school logos live: a random name under UPLOAD_DIR/coach-logos, outside public/, never served. */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { LOGO_TYPES, type LogoType } from "./rules.ts";

export interface StoredLogo {
  /** The random file name (what the coach_requests row keeps). */
  file: string;
  /** Absolute path, read by the mailer when the brand's e-mail is sent. */
  path: string;
  type: LogoType;
  contentType: (typeof LOGO_TYPES)[LogoType];
  bytes: number;
}

export const logoDirectory = (uploadDir: string) => path.join(uploadDir, "coach-logos");

export async function storeLogo(uploadDir: string, content: Buffer, type: LogoType): Promise<StoredLogo> {
  const dir = logoDirectory(uploadDir);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = `${randomBytes(16).toString("hex")}.${type}`;
  const full = path.join(dir, file);
  // wx: never overwrite; 0600: readable by the app's own user only.
  await fs.writeFile(full, content, { flag: "wx", mode: 0o600 });
  return { file, path: full, type, contentType: LOGO_TYPES[type], bytes: content.length };
}

export async function removeLogo(logo: StoredLogo): Promise<void> {
  await fs.rm(logo.path, { force: true });
}
