/** Brand content shown in the shell and used by rules that name the brand. Browser-safe. */
export interface NavLink {
  label: string;
  href: string;
}

export interface Site {
  brandName: string;
  displayName: string;
  tagline: string;
  email: string;
  phone: string;
  phoneHref: string;
  city: string;
  mailingAddress: string[];
  nav: NavLink[];
  footerLinks: NavLink[];
  footerEvents: NavLink[];
  policyLinks: NavLink[];
  socials: { label: string; href: string }[];
  nutritionPartner: { name: string; href: string };
  /** SHIPS_STARTING_DATE (YYYY-MM-DD): the day tees and caps start shipping, or null when they ship as everything else. */
  shipsStarting: string | null;
}

export function buildSite(brandName: string, opts: { shipsStarting?: string | null } = {}): Site {
  return {
    brandName,
    displayName: `${brandName} Wrestling`,
    tagline: "Premium wrestling apparel and elite summer camps, built in Birmingham.",
    email: "team@ironsidewrestling.com",
    phone: "(205) 555-0142",
    phoneHref: "tel:+12055550142",
    city: "Birmingham, AL",
    mailingAddress: [`${brandName} Wrestling`, "2100 1st Avenue North, Suite 300", "Birmingham, AL 35203"],
    nav: [
      { label: "Home", href: "/" },
      { label: "Events", href: "/events" },
      { label: "Shop", href: "/shop" },
      { label: "Custom Apparel", href: "/custom-apparel" },
      { label: "About", href: "/about" },
      { label: "Contact", href: "/contact" },
    ],
    footerLinks: [
      { label: "Home", href: "/" },
      { label: "Shop", href: "/shop" },
      { label: "Events", href: "/events" },
      { label: "About", href: "/about" },
      { label: "Contact", href: "/contact" },
    ],
    footerEvents: [
      { label: "Birmingham Slam Camp", href: "/events/1" },
      { label: "National Champ Camp", href: "/events/2" },
      { label: "Texas Recruiting Clinic", href: "/events/3" },
      { label: "Panther Train Tour", href: "/events/4" },
    ],
    policyLinks: [
      { label: "Shipping", href: "/shipping" },
      { label: "Returns", href: "/returns" },
      { label: "Privacy", href: "/privacy" },
      { label: "Terms", href: "/terms" },
    ],
    // The spec gives the social links placeholder targets; the brand fills them in when its accounts are public.
    socials: [
      { label: "Instagram", href: "#" },
      { label: "Facebook", href: "#" },
      { label: "X", href: "#" },
      { label: "YouTube", href: "#" },
    ],
    nutritionPartner: { name: "Fuel Lab Nutrition", href: "https://www.fuellabnutrition.com/" },
    shipsStarting: opts.shipsStarting ?? null,
  };
}
