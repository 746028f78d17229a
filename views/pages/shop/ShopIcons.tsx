import { Svg as Frame } from "../../layout/Icons.tsx";

/** The shop's own small inline icons (feature strip, info grid). */
const Svg = ({ children }: { children: React.ReactNode }) => <Frame className="shop-icon" size={28}>{children}</Frame>;

export const QualityIcon = () => <Svg><path d="M12 2l3 6.5 7 .9-5.1 4.8 1.3 7L12 17.8 5.8 21.2l1.3-7L2 9.4l7-.9z" /></Svg>;
export const TruckIcon = () => (
  <Svg><path d="M1 4h14v12H1z" /><path d="M15 9h4l4 4v3h-8z" /><circle cx="6" cy="18.5" r="2" /><circle cx="18" cy="18.5" r="2" /></Svg>
);
export const ReturnIcon = () => <Svg><path d="M3 10h12a5 5 0 0 1 0 10H9" /><path d="M7 6l-4 4 4 4" /></Svg>;
export const CareIcon = () => <Svg><path d="M4 8h16l-2 12H6z" /><path d="M8 8a4 4 0 0 1 8 0" /><path d="M9 13c1 1 2 1 3 0s2-1 3 0" /></Svg>;
export const SupportIcon = () => (
  <Svg><path d="M4 14v-3a8 8 0 0 1 16 0v3" /><rect x="2" y="14" width="5" height="6" rx="1.5" /><rect x="17" y="14" width="5" height="6" rx="1.5" /></Svg>
);

export interface IconPoint {
  Icon: () => React.ReactElement;
  title: string;
  text: string;
}

/** A list of icon + title + line: the shop's feature strip and the product page's info grid. */
export function IconPoints({ items, className, itemClassName }: { items: IconPoint[]; className: string; itemClassName?: string }) {
  return (
    <ul className={className} role="list">
      {items.map(({ Icon, title, text }) => (
        <li key={title} className={itemClassName}>
          <Icon />
          <h3>{title}</h3>
          <p className="muted">{text}</p>
        </li>
      ))}
    </ul>
  );
}
