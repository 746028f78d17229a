import { Svg } from "../../layout/Icons.tsx";

/** Small inline icons for the event pages (decorative: the text next to them says the same). */
const Icon = ({ children }: { children: React.ReactNode }) => <Svg className="event-icon" size={20}>{children}</Svg>;

export const CalendarIcon = () => (
  <Icon><rect x="3" y="4" width="18" height="18" rx="2" /><path d="M16 2v4M8 2v4M3 10h18" /></Icon>
);
export const ClockIcon = () => (<Icon><circle cx="12" cy="12" r="10" /><path d="M12 6v6l4 2" /></Icon>);
export const MapPinIcon = () => (<Icon><path d="M21 10c0 7-9 13-9 13S3 17 3 10a9 9 0 0 1 18 0z" /><circle cx="12" cy="10" r="3" /></Icon>);
export const UsersIcon = () => (
  <Icon><path d="M17 21v-2a4 4 0 0 0-4-4H5a4 4 0 0 0-4 4v2" /><circle cx="9" cy="7" r="4" /><path d="M23 21v-2a4 4 0 0 0-3-3.9M16 3.1a4 4 0 0 1 0 7.8" /></Icon>
);
export const CheckIcon = () => (<Icon><path d="M20 6 9 17l-5-5" /></Icon>);
export const ShieldIcon = () => (<Icon><path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" /></Icon>);
export const TagIcon = () => (
  <Icon><path d="M20.6 13.4 13.4 20.6a2 2 0 0 1-2.8 0L2 12V2h10l8.6 8.6a2 2 0 0 1 0 2.8z" /><circle cx="7" cy="7" r="1.5" /></Icon>
);
