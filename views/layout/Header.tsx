import type { NavLink, Site } from "../../src/shared/site.ts";
import { badgeText, DESKTOP_BADGE_CAP, MOBILE_BADGE_CAP } from "../../src/shared/cart/badge.ts";
import { BrandMark, CartIcon, CloseIcon, MenuIcon } from "./Icons.tsx";

function isCurrent(path: string, href: string): boolean {
  return href === "/" ? path === "/" : path === href || path.startsWith(`${href}/`);
}

/** The five links, the same in the desktop bar and the mobile menu. */
function NavList({ links, path }: { links: NavLink[]; path: string }) {
  return (
    <ul>
      {links.map((l) => (
        <li key={l.href}>
          <a href={l.href} aria-current={isCurrent(path, l.href) ? "page" : undefined}>{l.label}</a>
        </li>
      ))}
    </ul>
  );
}

export function Header({ site, path, cartCount }: { site: Site; path: string; cartCount: number }) {
  const cartLabel = `Cart, ${cartCount} ${cartCount === 1 ? "item" : "items"}`;
  return (
    <header className="site-header">
      <div className="container header-inner">
        <a className="brand" href="/" aria-label={`${site.displayName} home`}>
          <BrandMark className="brand-mark" />
          <span className="brand-name">{site.brandName.toUpperCase()}</span>
        </a>
        <nav className="nav-desktop" aria-label="Main">
          <NavList links={site.nav} path={path} />
        </nav>
        <div className="header-actions">
          <a className="cart-link" href="/cart" aria-label={cartLabel} data-cart-link>
            <CartIcon />
            <span className="cart-badge cart-badge-desktop" data-cart-badge="desktop" hidden={cartCount === 0} aria-hidden="true">
              {badgeText(cartCount, DESKTOP_BADGE_CAP)}
            </span>
            <span className="cart-badge cart-badge-mobile" data-cart-badge="mobile" hidden={cartCount === 0} aria-hidden="true">
              {badgeText(cartCount, MOBILE_BADGE_CAP)}
            </span>
          </a>
          <button type="button" className="menu-toggle" popoverTarget="mobile-menu" aria-label="Menu">
            <MenuIcon />
          </button>
        </div>
      </div>
      <nav id="mobile-menu" className="mobile-menu" popover="auto" aria-label="Mobile">
        <div className="mobile-menu-top">
          <span className="brand-name">{site.brandName.toUpperCase()}</span>
          <button type="button" className="menu-close" popoverTarget="mobile-menu" popoverTargetAction="hide" aria-label="Close menu">
            <CloseIcon />
          </button>
        </div>
        <NavList links={site.nav} path={path} />
      </nav>
    </header>
  );
}
