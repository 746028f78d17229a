import type { Knex } from "knex";

/**
 * The four seeded events with the prices and dates DESIGN.md resolved (registration-screen prices govern
 * everywhere). Dates are written as Date objects at UTC midnight, like every other timestamp.
 */
const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

const AGE_GROUP = "Ages 10+ through high school";
const TEAM_PRICE = 19900;

interface SeedEvent {
  id: number;
  title: string;
  short_description: string;
  description: string;
  category: string;
  date_text: string;
  start_date: string;
  end_date: string;
  time_text: string;
  location: string;
  image: string;
  card_overlay: string | null;
  features: string[];
  original_price_cents: number | null;
  packages: { code: string; label: string; price_cents: number; day_count: number }[];
  days: { date: string; label: string }[];
}

const events: SeedEvent[] = [
  {
    id: 1,
    title: "Birmingham Slam Camp",
    short_description:
      "Three days of hard, technical wrestling in our home city, coached by an elite staff of national champions and Olympic-level trainers.",
    description: [
      "The Birmingham Slam Camp is where our brand started: three days in the room with an elite coaching staff that has won at every level, from state finals to world teams. Every session is built around live situations, so the technique sticks when the whistle blows.",
      "Mornings cover neutral attacks, mat returns and top control; afternoons turn that work into live goes, situational wrestling and conditioning. Athletes are grouped by age, weight and experience, so a first-year middle schooler and a returning state placer both leave better.",
      "Every athlete goes home with camp gear, a personal evaluation from the staff and a plan for the rest of the summer.",
    ].join("\n\n"),
    category: "Camp",
    date_text: "June 19-21, 2025",
    start_date: "2025-06-19",
    end_date: "2025-06-21",
    time_text: "9:00 AM - 4:00 PM",
    location: "Birmingham, AL",
    image: "/images/events/slam-camp.svg",
    card_overlay: null,
    features: [
      "Six technique sessions with the Elite Coaching Staff",
      "Live wrestling grouped by age, weight and experience",
      "Daily strength, conditioning and mobility blocks",
      "Mindset and competition-preparation talks",
      "Personal evaluation from a staff coach",
      "Exclusive Slam Camp T-shirt",
      "Lunch and hydration on every camp day",
    ],
    original_price_cents: null,
    packages: [
      { code: "full", label: "Full Camp (3 Days)", price_cents: 24900, day_count: 3 },
      { code: "1day", label: "1 Day", price_cents: 14900, day_count: 1 },
    ],
    days: [
      { date: "2025-06-19", label: "Thursday, June 19" },
      { date: "2025-06-20", label: "Friday, June 20" },
      { date: "2025-06-21", label: "Saturday, June 21" },
    ],
  },
  {
    id: 2,
    title: "National Champ Camp",
    short_description:
      "Our flagship three-day camp in Las Vegas: championship technique, live goes and the habits that win in March.",
    description: [
      "The National Champ Camp brings wrestlers from across the country to Las Vegas for three days of championship-level training. The curriculum is the one national champions actually use: a tight stance and motion, two or three go-to attacks finished from every angle, and a top game that breaks people.",
      "Each day mixes drilling, situational wrestling and live goes with coaches on the edge of the mat. Film breakdowns and recovery sessions show athletes how the best in the sport prepare, compete and bounce back.",
      "Come for one day, two days or the full camp: every option includes coaching in small groups and the camp shirt.",
    ].join("\n\n"),
    category: "Camp",
    date_text: "June 5-7, 2025",
    start_date: "2025-06-05",
    end_date: "2025-06-07",
    time_text: "9:00 AM - 4:00 PM",
    location: "Las Vegas, NV",
    image: "/images/events/champ-camp.svg",
    card_overlay: null,
    features: [
      "Championship technique sessions with national-level coaches",
      "Situational and live wrestling every day",
      "Film study of championship matches",
      "Recovery, nutrition and weight-management guidance",
      "Small coaching groups by age and weight",
      "National Champ Camp T-shirt",
      "Certificate of completion",
    ],
    original_price_cents: 34900,
    packages: [
      { code: "full", label: "Full Camp (3 Days)", price_cents: 29900, day_count: 3 },
      { code: "2day", label: "2 Days", price_cents: 23800, day_count: 2 },
      { code: "1day", label: "1 Day", price_cents: 11900, day_count: 1 },
    ],
    days: [
      { date: "2025-06-05", label: "Thursday, June 5" },
      { date: "2025-06-06", label: "Friday, June 6" },
      { date: "2025-06-07", label: "Saturday, June 7" },
    ],
  },
  {
    id: 3,
    title: "Texas Recruiting Clinic",
    short_description:
      "Two days of training and live wrestling in front of college coaches in Arlington, with recruiting guidance for athletes and parents.",
    description: [
      "The Texas Recruiting Clinic puts athletes on the mat in front of college coaching staffs. Two days of instruction and live wrestling give coaches a real look at how each athlete moves, competes and takes coaching.",
      "Alongside the wrestling, athletes and parents get straight answers about the recruiting process: divisions and scholarships, academic eligibility, what coaches look for on film and how to contact a program the right way.",
      "College coaches who want to attend register separately through the College Coach Registration on the registration page.",
    ].join("\n\n"),
    category: "Clinic",
    date_text: "June 12-13, 2025",
    start_date: "2025-06-12",
    end_date: "2025-06-13",
    time_text: "9:00 AM - 3:00 PM",
    location: "Arlington, TX",
    image: "/images/events/recruiting-clinic.svg",
    card_overlay: "Open to All Ages, Boys and Girls",
    features: [
      "Live wrestling sessions evaluated by college coaches",
      "Technique sessions led by college staff",
      "Recruiting seminar for athletes and parents",
      "Guidance on highlight film and athletic profiles",
      "Question-and-answer panel with college coaches",
      "Recruiting Clinic T-shirt",
    ],
    original_price_cents: null,
    packages: [
      { code: "full", label: "Full Clinic (2 Days)", price_cents: 24900, day_count: 2 },
      { code: "1day", label: "1 Day", price_cents: 14900, day_count: 1 },
    ],
    days: [
      { date: "2025-06-12", label: "Thursday, June 12" },
      { date: "2025-06-13", label: "Friday, June 13" },
    ],
  },
  {
    id: 4,
    title: "Panther Train Tour",
    short_description:
      "A three-stop summer training tour: high-intensity practices and conditioning, one day at a time or the whole tour.",
    description: [
      "The Panther Train Tour takes our training room on the road. Each stop is a full day of high-paced practice: drilling chains, hand fighting, live goes and a conditioning finish that tests the will as much as the lungs.",
      "Join one stop at the single-day price, or ride the whole tour and train all three days with the same coaches. Stops are announced to registered athletes as each host site is confirmed.",
    ].join("\n\n"),
    category: "Tour",
    date_text: "June 15-17, 2025",
    start_date: "2025-06-15",
    end_date: "2025-06-17",
    time_text: "10:00 AM - 3:00 PM",
    location: "Multiple locations",
    image: "/images/events/train-tour.svg",
    card_overlay: null,
    features: [
      "Full-day practice at every tour stop",
      "Hand fighting, chain wrestling and live goes",
      "Conditioning finish each day",
      "Coaching from the Panther training staff",
      "Train Tour T-shirt",
    ],
    original_price_cents: null,
    packages: [
      { code: "full", label: "Full Tour (3 Days)", price_cents: 20000, day_count: 3 },
      { code: "singleDay", label: "Single Day", price_cents: 9900, day_count: 1 },
    ],
    days: [
      { date: "2025-06-15", label: "Sunday, June 15" },
      { date: "2025-06-16", label: "Monday, June 16" },
      { date: "2025-06-17", label: "Tuesday, June 17" },
    ],
  },
];

const coaches = [
  {
    name: "Marcus Delgado",
    title: "Head Clinician, 2x NCAA Division I Champion",
    bio: "A two-time national champion and four-time All-American, Marcus coached college wrestling for a decade before building the Slam Camp curriculum. Known for his leg attacks and relentless pace.",
    image: "/images/events/coaches/marcus-delgado.svg",
  },
  {
    name: "Tyrell Banks",
    title: "Freestyle Coach, Former U.S. World Team Member",
    bio: "Tyrell represented the United States at the senior world level and now trains age-group freestyle athletes. He runs the camp's hand-fighting and scramble sessions.",
    image: "/images/events/coaches/tyrell-banks.svg",
  },
  {
    name: "Jake Brennan",
    title: "High School Head Coach, 6 State Team Titles",
    bio: "Jake built one of Alabama's most successful high school programs. He leads the top-and-bottom sessions and every athlete's end-of-camp evaluation.",
    image: "/images/events/coaches/jake-brennan.svg",
  },
  {
    name: "Dana Whitfield",
    title: "Strength & Conditioning Coach, Women's Wrestling Specialist",
    bio: "A former college national placer, Dana designs the camp's strength, mobility and recovery blocks and coaches the girls' technique groups.",
    image: "/images/events/coaches/dana-whitfield.svg",
  },
];

const colleges = [
  { name: "Ironwood University", image: "/images/events/colleges/ironwood-university.svg" },
  { name: "Mesa Ridge College", image: "/images/events/colleges/mesa-ridge-college.svg" },
  { name: "Bluebonnet State", image: "/images/events/colleges/bluebonnet-state.svg" },
  { name: "Granite Falls University", image: "/images/events/colleges/granite-falls-university.svg" },
  { name: "Cimarron Tech", image: "/images/events/colleges/cimarron-tech.svg" },
];

export async function up(knex: Knex): Promise<void> {
  const now = new Date();
  for (const e of events) {
    await knex("events").insert({
      id: e.id,
      title: e.title,
      short_description: e.short_description,
      description: e.description,
      category: e.category,
      date_text: e.date_text,
      start_date: day(e.start_date),
      end_date: day(e.end_date),
      time_text: e.time_text,
      location: e.location,
      image: e.image,
      card_overlay: e.card_overlay,
      features_json: JSON.stringify(e.features),
      capacity: 200,
      age_group: AGE_GROUP,
      listed: true,
      registration_closes_at: null,
      team_price_cents: TEAM_PRICE,
      original_price_cents: e.original_price_cents,
      created_at: now,
      updated_at: now,
    });
    await knex("event_packages").insert(e.packages.map((p, i) => ({ event_id: e.id, ...p, sort_order: i + 1 })));
    await knex("event_days").insert(e.days.map((d, i) => ({ event_id: e.id, day_date: day(d.date), label: d.label, sort_order: i + 1 })));
  }
  await knex("event_coaches").insert(coaches.map((c, i) => ({ event_id: 1, ...c, sort_order: i + 1 })));
  await knex("event_college_logos").insert(colleges.map((c, i) => ({ event_id: 3, ...c, sort_order: i + 1 })));
}

export async function down(knex: Knex): Promise<void> {
  const ids = events.map((e) => e.id);
  await knex("event_college_logos").whereIn("event_id", ids).delete();
  await knex("event_coaches").whereIn("event_id", ids).delete();
  await knex("event_days").whereIn("event_id", ids).delete();
  await knex("event_packages").whereIn("event_id", ids).delete();
  await knex("events").whereIn("id", ids).delete();
}
