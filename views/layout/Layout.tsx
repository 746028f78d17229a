import type { ReactNode } from "react";
import type { Site } from "../../src/shared/site.ts";
import { Header } from "./Header.tsx";
import { Footer } from "./Footer.tsx";
import { Toast, type ToastMessage } from "../components/Toast.tsx";
import { BrandMark } from "./Icons.tsx";

export interface ShellProps {
  site: Site;
  path: string;
  cartCount: number;
  toast: ToastMessage | undefined;
  notices: string[];
  testModeBanner: boolean;
  /** Pages such as /stripe-checkout are laid out without the header and footer. */
  bare?: boolean;
}

export function Layout({ shell, children }: { shell: ShellProps; children: ReactNode }) {
  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      {shell.testModeBanner ? (
        <p className="test-mode-banner" role="note">
          Test mode: Stripe's test cards and the Test wallet only; no real card is charged.
        </p>
      ) : null}
      {shell.bare ? (
        // A page without the site's menu still says whose it is, and leads home.
        <header className="bare-header">
          <div className="container">
            <a className="brand" href="/" aria-label={`${shell.site.displayName} home`}>
              <BrandMark className="brand-mark" />
              <span className="brand-name">{shell.site.brandName.toUpperCase()}</span>
            </a>
          </div>
        </header>
      ) : (
        <Header site={shell.site} path={shell.path} cartCount={shell.cartCount} />
      )}
      {shell.notices.length > 0 ? (
        <div className="notices" role="status">
          {shell.notices.map((n) => <p key={n} className="notice">{n}</p>)}
        </div>
      ) : null}
      <main id="main" className={shell.bare ? "main main-bare" : "main"} tabIndex={-1}>{children}</main>
      {shell.bare ? null : <Footer site={shell.site} />}
      <div id="toast-region" className="toast-region" aria-live="polite">
        {shell.toast ? <Toast toast={shell.toast} /> : null}
      </div>
    </>
  );
}
