/** Our own inline SVG icons (no icon fonts, no external images). */
type P = { className?: string; title?: string };

/** The one line-icon frame (24-unit grid, current colour); decorative unless given a title. */
export function Svg({ className, title, children, size = 24 }: P & { children: React.ReactNode; size?: number }) {
  return (
    <svg className={className} viewBox="0 0 24 24" width={size} height={size} fill="none" stroke="currentColor" strokeWidth="2"
      strokeLinecap="round" strokeLinejoin="round" aria-hidden={title ? undefined : true} role={title ? "img" : undefined} focusable="false">
      {title ? <title>{title}</title> : null}
      {children}
    </svg>
  );
}

export const CartIcon = (p: P) => (
  <Svg {...p}><circle cx="9" cy="21" r="1" /><circle cx="20" cy="21" r="1" /><path d="M1 1h4l2.7 13.4a2 2 0 0 0 2 1.6h9.7a2 2 0 0 0 2-1.6L23 6H6" /></Svg>
);
export const MenuIcon = (p: P) => (<Svg {...p}><path d="M3 6h18M3 12h18M3 18h18" /></Svg>);
export const CloseIcon = (p: P) => (<Svg {...p}><path d="M18 6 6 18M6 6l12 12" /></Svg>);
export const MailIcon = (p: P) => (<Svg {...p}><rect x="2" y="4" width="20" height="16" rx="2" /><path d="m22 6-10 7L2 6" /></Svg>);
export const PhoneIcon = (p: P) => (
  <Svg {...p}><path d="M22 16.9v3a2 2 0 0 1-2.2 2 19.8 19.8 0 0 1-8.6-3.1 19.5 19.5 0 0 1-6-6A19.8 19.8 0 0 1 2.1 4.2 2 2 0 0 1 4.1 2h3a2 2 0 0 1 2 1.7c.1.9.4 1.8.7 2.7a2 2 0 0 1-.5 2.1L8 9.8a16 16 0 0 0 6 6l1.3-1.3a2 2 0 0 1 2.1-.4c.9.3 1.8.6 2.7.7a2 2 0 0 1 1.7 2z" /></Svg>
);
export const PinIcon = (p: P) => (<Svg {...p}><path d="M21 10c0 7-9 13-9 13S3 17 3 10a9 9 0 0 1 18 0z" /><circle cx="12" cy="10" r="3" /></Svg>);
export const InstagramIcon = (p: P) => (<Svg {...p}><rect x="2" y="2" width="20" height="20" rx="5" /><circle cx="12" cy="12" r="4" /><circle cx="17.5" cy="6.5" r=".5" /></Svg>);
export const FacebookIcon = (p: P) => (<Svg {...p}><path d="M18 2h-3a5 5 0 0 0-5 5v3H7v4h3v8h4v-8h3l1-4h-4V7a1 1 0 0 1 1-1h3z" /></Svg>);
export const XIcon = (p: P) => (<Svg {...p}><path d="M4 4l16 16M20 4 4 20" /></Svg>);
export const YoutubeIcon = (p: P) => (<Svg {...p}><rect x="2" y="5" width="20" height="14" rx="4" /><path d="m10 9 5 3-5 3z" /></Svg>);

export const socialIcons: Record<string, (p: P) => React.ReactElement> = {
  Instagram: InstagramIcon,
  Facebook: FacebookIcon,
  X: XIcon,
  YouTube: YoutubeIcon,
};

/** The brand mark: a wrestler's stance inside a shield. */
export function BrandMark({ className }: { className?: string }) {
  return (
    <svg className={className} viewBox="0 0 40 40" width="36" height="36" aria-hidden="true" focusable="false">
      <path d="M20 2 36 8v11c0 10-7 16.5-16 19C11 35.5 4 29 4 19V8z" fill="#d4202a" />
      <path d="M20 6.5 32 11v8c0 7.6-5 12.6-12 14.8C13 31.6 8 26.6 8 19v-8z" fill="#0b0b0d" />
      <path d="M13 26l4-7-2-4 5-3 4 3-2 3 5 8h-3l-3.5-5-2.5 5z" fill="#f4f4f5" />
    </svg>
  );
}
