/**
 * The custom apparel studio's showcase: featured designs, process, portfolio, teams, colorways, school
 * packages and complete sets. Content, not rules; browser-safe (widgets get slices of it as props).
 * Every picture is our own SVG under public/images/apparel/.
 */

export interface ApparelItem {
  name: string;
  image: string;
}

export interface FeaturedDesign {
  name: string;
  description: string;
  image: string;
  points: string[];
}

export interface ProcessStep {
  name: string;
  description: string;
}

export interface PortfolioItem {
  slug: string;
  name: string;
  category: string;
  description: string;
  image: string;
  teamColor: string;
  items: string[];
}

export interface FeaturedTeam {
  name: string;
  location: string;
  description: string;
  image: string;
  teamColor: string;
  items: string[];
}

export interface Colorway {
  id: "black" | "blue" | "brown" | "purple" | "white" | "classic";
  name: string;
  description: string;
  image: string;
  /** CSS gradient of the swatch. */
  gradient: string;
}

export interface SchoolPackage {
  name: string;
  mascot: string;
  description: string;
  schoolColors: { name: string; hex: string }[];
  items: string[];
  images: ApparelItem[];
}

export interface ApparelSet {
  name: string;
  description: string;
  teamColor: string;
  items: ApparelItem[];
}

export interface PortfolioSet {
  name: string;
  description: string;
  designs: ApparelItem[];
}

const img = (file: string) => `/images/apparel/${file}.svg`;

export const FEATURED_DESIGNS: FeaturedDesign[] = [
  {
    name: "Competition Gear",
    description: "Singlets, fight shorts and rashguards cut for the mat: four-way stretch, flatlock seams, colors that survive a season of washes.",
    image: img("featured-competition"),
    points: ["Sublimated singlets", "Compression rashguards", "Match-day fight shorts"],
  },
  {
    name: "Team Packages",
    description: "Everything a roster needs in one order, one design language and one invoice, from the practice room to the podium.",
    image: img("featured-team-packages"),
    points: ["Singlet, warmup and tee bundles", "Names and numbers included", "Coach and staff pieces"],
  },
  {
    name: "Special Editions",
    description: "Senior nights, state qualifiers, rivalry duals: limited runs with numbered tags that mark the moment.",
    image: img("featured-special-editions"),
    points: ["Limited-run numbering", "Commemorative prints", "Metallic and glow inks"],
  },
];

export const PROCESS_STEPS: ProcessStep[] = [
  { name: "Consultation", description: "A 20-minute call with our design lead about your team, colors, budget and the date you need gear on the mat." },
  { name: "Design", description: "Within a week you get two original concepts, drawn for your program, on real singlet, rashguard and warmup templates." },
  { name: "Refinement", description: "Up to three rounds of changes: colors, fonts, names and numbers, until your coach signs off on the final proof." },
  { name: "Production", description: "Sublimated, cut and sewn to your size run, checked piece by piece, then boxed and shipped to your door." },
];

export const PORTFOLIO: PortfolioItem[] = [
  { slug: "red-mountain-singlet", name: "Red Mountain Miners Singlet", category: "Competition Gear", teamColor: "#c8102e", image: img("portfolio-red-mountain-singlet"),
    description: "A pick-axe chevron down the side panels and a deep crimson body for a program that wrestles like it works.", items: ["Sublimated singlet", "Matching fight shorts"] },
  { slug: "magic-city-rashguard", name: "Magic City WC Rashguard", category: "Competition Gear", teamColor: "#f5b301", image: img("portfolio-magic-city-rashguard"),
    description: "Gold lightning over a black compression base: the club's practice and no-gi tournament top.", items: ["Long-sleeve rashguard", "Short-sleeve rashguard"] },
  { slug: "lone-star-warmup", name: "Lone Star Grapplers Warmup", category: "Team Packages", teamColor: "#1e4fd1", image: img("portfolio-lone-star-warmup"),
    description: "A full-zip warmup jacket with a star-field yoke and embroidered club crest for the walk to the mat.", items: ["Full-zip warmup jacket", "Tapered warmup pants"] },
  { slug: "steel-valley-hoodie", name: "Steel Valley RTC Hoodie", category: "Team Packages", teamColor: "#6b7280", image: img("portfolio-steel-valley-hoodie"),
    description: "Heavyweight fleece in gunmetal gray with a riveted-plate print: the regional training center's travel layer.", items: ["Heavyweight hoodie", "Joggers"] },
  { slug: "shades-creek-singlet", name: "Shades Creek Hawks Singlet", category: "Competition Gear", teamColor: "#0f766e", image: img("portfolio-shades-creek-singlet"),
    description: "Teal and black with a talon slash across the chest; high-cut leg for freedom on shots.", items: ["Sublimated singlet", "Headgear wrap"] },
  { slug: "gulf-coast-rashguard", name: "Gulf Coast Gators Rashguard", category: "Competition Gear", teamColor: "#15803d", image: img("portfolio-gulf-coast-rashguard"),
    description: "A scale-texture sublimation in two greens, built for humid practice rooms on the coast.", items: ["Long-sleeve rashguard", "Fight shorts"] },
  { slug: "ironwood-team-tee", name: "Ironwood Titans Team Tee", category: "Team Packages", teamColor: "#7c2d12", image: img("portfolio-ironwood-team-tee"),
    description: "Our heavyweight tee in rust with a cracked-stone titan mark: the shirt the whole school wants.", items: ["Heavyweight tee", "Long-sleeve tee"] },
  { slug: "vulcan-prep-shorts", name: "Vulcan Prep Fight Shorts", category: "Competition Gear", teamColor: "#ea580c", image: img("portfolio-vulcan-prep-shorts"),
    description: "Forge-orange fight shorts with a hammer-and-anvil leg print and a no-slip waistband.", items: ["Fight shorts", "Compression liner"] },
  { slug: "classic-edition-rashguard", name: "Classic Edition Rashguard", category: "Special Editions", teamColor: "#e0262f", image: img("portfolio-classic-edition-rashguard"),
    description: "Our house colorway: red, black and white panels in a numbered run for camp alumni.", items: ["Long-sleeve rashguard", "Numbered hang tag"] },
  { slug: "state-qualifier-tee", name: "State Qualifier Tee", category: "Special Editions", teamColor: "#f5b301", image: img("portfolio-state-qualifier-tee"),
    description: "Every qualifier's name on the back in bracket form, printed the week of the state tournament.", items: ["Heavyweight tee", "Bracket back print"] },
  { slug: "senior-night-singlet", name: "Senior Night Singlet", category: "Special Editions", teamColor: "#6b2fb3", image: img("portfolio-senior-night-singlet"),
    description: "A one-night singlet with each senior's name and years on the mat sublimated down the spine.", items: ["Sublimated singlet", "Senior banner"] },
  { slug: "coaches-quarter-zip", name: "Coaches Quarter-Zip", category: "Team Packages", teamColor: "#111827", image: img("portfolio-coaches-quarter-zip"),
    description: "A clean black quarter-zip with a tonal team crest for the corner chair and the booster dinner.", items: ["Quarter-zip pullover", "Embroidered crest"] },
];

export const FEATURED_TEAMS: FeaturedTeam[] = [
  { name: "Magic City Wrestling Club", location: "Birmingham, AL", teamColor: "#f5b301", image: img("team-magic-city"),
    description: "180 wrestlers from 6U to high school, outfitted from singlets to parent hoodies.", items: ["Singlets", "Rashguards", "Parent hoodies"] },
  { name: "Lone Star Grapplers", location: "Arlington, TX", teamColor: "#1e4fd1", image: img("team-lone-star"),
    description: "A folkstyle and freestyle club that travels to eight national events a year in our warmups.", items: ["Warmups", "Travel bags", "Fight shorts"] },
  { name: "Steel Valley RTC", location: "Pittsburgh, PA", teamColor: "#6b7280", image: img("team-steel-valley"),
    description: "A regional training center whose post-grad athletes train in our heavyweight gear every day.", items: ["Heavyweight tees", "Hoodies", "Rashguards"] },
  { name: "Gulf Coast Gators", location: "Mobile, AL", teamColor: "#15803d", image: img("team-gulf-coast"),
    description: "A high school dynasty with a new singlet every state title: four and counting.", items: ["Singlets", "Warmups", "State title tees"] },
];

export const RASHGUARD_COLORWAYS: Colorway[] = [
  { id: "black", name: "Black", image: img("rashguard-black"), gradient: "linear-gradient(135deg, #050505, #3a3a40)",
    description: "Murdered-out black with tonal panels. Goes with every team color and every singlet." },
  { id: "blue", name: "Blue", image: img("rashguard-blue"), gradient: "linear-gradient(135deg, #0b2a6b, #2f6bff)",
    description: "Deep royal fading into electric blue, with a silver stripe down each arm." },
  { id: "brown", name: "Brown", image: img("rashguard-brown"), gradient: "linear-gradient(135deg, #2b170c, #8a5530)",
    description: "Saddle-leather brown with tan piping: an old-school room look in modern fabric." },
  { id: "purple", name: "Purple", image: img("rashguard-purple"), gradient: "linear-gradient(135deg, #24093d, #7b3fd1)",
    description: "Royal purple with a violet gradient, our most requested colorway for club teams." },
  { id: "white", name: "White", image: img("rashguard-white"), gradient: "linear-gradient(135deg, #d9d9e0, #ffffff)",
    description: "Clean competition white with black side panels and red stitching accents." },
  { id: "classic", name: "Classic", image: img("rashguard-classic"), gradient: "linear-gradient(135deg, #0b0b0d 0%, #0b0b0d 45%, #e0262f 45%, #e0262f 70%, #f4f4f5 70%)",
    description: "The house colors: black body, red chest band and a white shoulder yoke." },
];

export const RASHGUARD_FEATURES = [
  "Four-way stretch performance fabric that moves with every shot and sprawl",
  "Flatlock seams that lie flat and never rub on the mat",
  "Sublimated graphics that will not crack, peel or fade",
  "Silicone waist gripper keeps it tucked through a scramble",
  "Moisture-wicking, anti-odor finish for two-a-day practices",
  "UPF 50+ for outdoor conditioning and summer camps",
];

export const SCHOOL_PACKAGES: SchoolPackage[] = [
  { name: "Red Mountain High", mascot: "Miners", description: "Competition singlet, warmup set and practice tees for a 40-wrestler varsity and JV room.",
    schoolColors: [{ name: "Crimson", hex: "#c8102e" }, { name: "Black", hex: "#0b0b0d" }],
    items: ["Singlets", "Warmups", "Practice tees"],
    images: [
      { name: "Red Mountain singlet", image: img("school-red-mountain-singlet") },
      { name: "Red Mountain warmup jacket", image: img("school-red-mountain-jacket") },
      { name: "Red Mountain practice tee", image: img("school-red-mountain-tee") },
    ] },
  { name: "Shades Creek High", mascot: "Hawks", description: "A teal-and-black package with rashguards for the practice room and hoodies for the bus.",
    schoolColors: [{ name: "Teal", hex: "#0f766e" }, { name: "Black", hex: "#0b0b0d" }],
    items: ["Singlets", "Rashguards", "Hoodies"],
    images: [
      { name: "Shades Creek singlet", image: img("school-shades-creek-singlet") },
      { name: "Shades Creek rashguard", image: img("school-shades-creek-rashguard") },
      { name: "Shades Creek hoodie", image: img("school-shades-creek-hoodie") },
    ] },
  { name: "Ironwood Academy", mascot: "Titans", description: "Rust and gold from head to toe: singlets, fight shorts and the Titans heavyweight tee.",
    schoolColors: [{ name: "Rust", hex: "#9a3412" }, { name: "Gold", hex: "#f5b301" }],
    items: ["Singlets", "Fight shorts", "Heavyweight tees"],
    images: [
      { name: "Ironwood singlet", image: img("school-ironwood-singlet") },
      { name: "Ironwood fight shorts", image: img("school-ironwood-shorts") },
      { name: "Ironwood heavyweight tee", image: img("school-ironwood-tee") },
    ] },
  { name: "Vulcan Prep", mascot: "Vulcans", description: "Forge orange and charcoal, with headgear covers and travel bags for a program on the road.",
    schoolColors: [{ name: "Forge orange", hex: "#ea580c" }, { name: "Charcoal", hex: "#374151" }],
    items: ["Singlets", "Headgear", "Travel bags"],
    images: [
      { name: "Vulcan Prep singlet", image: img("school-vulcan-prep-singlet") },
      { name: "Vulcan Prep headgear", image: img("school-vulcan-prep-headgear") },
      { name: "Vulcan Prep travel bag", image: img("school-vulcan-prep-bag") },
    ] },
];

export const APPAREL_SETS: ApparelSet[] = [
  { name: "Championship Set", teamColor: "#e0262f", description: "Everything for the biggest weekend of the year: the singlet, the warmup and the podium tee.",
    items: [
      { name: "Competition singlet", image: img("set-championship-singlet") },
      { name: "Full-zip warmup", image: img("set-championship-jacket") },
      { name: "Podium tee", image: img("set-championship-tee") },
      { name: "Gear bag", image: img("set-championship-bag") },
    ] },
  { name: "Practice Room Set", teamColor: "#1e4fd1", description: "Built for two-a-days: rashguard, fight shorts, heavyweight tee and a hoodie for the drive home.",
    items: [
      { name: "Long-sleeve rashguard", image: img("set-practice-rashguard") },
      { name: "Fight shorts", image: img("set-practice-shorts") },
      { name: "Heavyweight tee", image: img("set-practice-tee") },
      { name: "Hoodie", image: img("set-practice-hoodie") },
    ] },
  { name: "Travel Squad Set", teamColor: "#f5b301", description: "Look like one team through every airport and hotel lobby on the national circuit.",
    items: [
      { name: "Warmup jacket", image: img("set-travel-jacket") },
      { name: "Team hoodie", image: img("set-travel-hoodie") },
      { name: "Travel bag", image: img("set-travel-bag") },
      { name: "Team cap", image: img("set-travel-cap") },
    ] },
  { name: "Tournament Day Set", teamColor: "#15803d", description: "From weigh-ins to the finals: singlet, headgear, rashguard and shorts in one design.",
    items: [
      { name: "Competition singlet", image: img("set-tournament-singlet") },
      { name: "Headgear", image: img("set-tournament-headgear") },
      { name: "Short-sleeve rashguard", image: img("set-tournament-rashguard") },
      { name: "Fight shorts", image: img("set-tournament-shorts") },
    ] },
];

const portfolioImage = (slug: string): ApparelItem => {
  const p = PORTFOLIO.find((x) => x.slug === slug)!;
  return { name: p.name, image: p.image };
};

export const PORTFOLIO_SETS: PortfolioSet[] = [
  { name: "Singlets", description: "Sublimated competition singlets for varsity rooms and clubs.",
    designs: ["red-mountain-singlet", "shades-creek-singlet", "senior-night-singlet"].map(portfolioImage) },
  { name: "Rashguards & Shorts", description: "Compression tops and fight shorts for practice and no-gi events.",
    designs: ["magic-city-rashguard", "gulf-coast-rashguard", "vulcan-prep-shorts"].map(portfolioImage) },
  { name: "Warmups & Team Wear", description: "Jackets, hoodies and tees that travel with the team.",
    designs: ["lone-star-warmup", "steel-valley-hoodie", "ironwood-team-tee"].map(portfolioImage) },
  { name: "Special Editions", description: "Numbered runs for the nights a program remembers.",
    designs: ["classic-edition-rashguard", "state-qualifier-tee", "coaches-quarter-zip"].map(portfolioImage) },
];

/** The spec's rotation intervals. */
export const ROTATION_MS = { apparelSets: 10_000, portfolioSets: 4_000, schoolImages: 3_000 } as const;

export function findPortfolioItem(slug: string | undefined): PortfolioItem | undefined {
  return slug ? PORTFOLIO.find((p) => p.slug === slug) : undefined;
}
