/**
 * The data and tools of ptc_runner's LLM benchmark (shared/oracles/ptc-runner/benchmark-tasks.md),
 * rebuilt to its description: four datasets of the stated sizes, keys and value ranges,
 * and the search/fetch tools over 40 policy documents. The reference draws the rows at
 * random on every run; here they come from a fixed seed, so a recorded answer replays to
 * the same value. The checks are the reference's (ranges and key sets), so they hold for
 * any draw.
 */
import { rng } from './rng.ts';

const r = rng(20_260_518);
const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const money = (lo: number, hi: number): number => Math.round((lo + r() * (hi - lo)) * 100) / 100;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const date = (year: number): string => {
  const month = int(1, 12);
  const day = int(1, [31, year % 4 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!);
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
};

export const CATEGORIES = ['electronics', 'clothing', 'food', 'books', 'sports', 'home', 'toys'] as const;
export const DEPARTMENTS = ['engineering', 'sales', 'marketing', 'support', 'hr', 'finance'] as const;
const LEVELS = ['junior', 'mid', 'senior', 'lead', 'manager', 'director'] as const;
const FIRST = [
  'Ann',
  'Ben',
  'Cara',
  'Dev',
  'Eli',
  'Fay',
  'Gus',
  'Hana',
  'Ivo',
  'Jo',
  'Kai',
  'Lea',
  'Max',
  'Nia',
  'Oto',
  'Pia',
];
const LAST = ['Smith', 'Lee', 'Garcia', 'Kim', 'Novak', 'Ito', 'Berg', 'Silva', 'Khan', 'Moreau'];

export const products = Array.from({ length: 500 }, (_, i) => ({
  id: i + 1,
  name: `Product ${i + 1}`,
  category: pick(CATEGORIES),
  price: money(1, 1001),
  stock: int(1, 500),
  rating: Math.round((1 + r() * 4) * 10) / 10,
  status: pick(['active', 'discontinued', 'out_of_stock'] as const),
  created_at: date(pick([2023, 2024])),
}));

export const orders = Array.from({ length: 1000 }, (_, i) => ({
  id: i + 1,
  customer_id: int(1, 200),
  product_id: int(1, 500),
  quantity: int(1, 10),
  total: money(1, 5001),
  status: pick(['pending', 'shipped', 'delivered', 'cancelled', 'refunded'] as const),
  payment_method: pick(['credit_card', 'paypal', 'bank_transfer', 'crypto'] as const),
  created_at: date(2024),
}));

export const employees = Array.from({ length: 200 }, (_, i) => {
  const salary = int(50_001, 200_000);
  return {
    id: i + 1,
    name: `${pick(FIRST)} ${pick(LAST)}`,
    department: pick(DEPARTMENTS),
    level: pick(LEVELS),
    salary,
    bonus: Math.round(salary * r() * 0.2),
    years_employed: int(1, 15),
    remote: r() < 0.4,
  };
});

const EXPENSE_CATEGORIES = ['travel', 'equipment', 'software', 'meals', 'office', 'training'] as const;
export const expenses = Array.from({ length: 800 }, (_, i) => {
  const category = pick(EXPENSE_CATEGORIES);
  return {
    id: i + 1,
    employee_id: int(1, 200),
    category,
    amount: money(5, 2500),
    description: `${category} expense ${i + 1}`,
    status: pick(['pending', 'approved', 'rejected', 'reimbursed'] as const),
    date: date(2024),
  };
});

/** The one-line dataset descriptions the model sees ("schema" data mode). */
export const DATA_DESCRIPTIONS = [
  'data/products: 500 rows {id, name "Product N", category (electronics|clothing|food|books|sports|home|toys), price, stock, rating 1.0..5.0, status (active|discontinued|out_of_stock), created_at "YYYY-MM-DD"}',
  'data/orders: 1000 rows {id, customer_id, product_id, quantity, total, status (pending|shipped|delivered|cancelled|refunded), payment_method (credit_card|paypal|bank_transfer|crypto), created_at "YYYY-MM-DD"}',
  'data/employees: 200 rows {id, name, department (engineering|sales|marketing|support|hr|finance), level (junior|mid|senior|lead|manager|director), salary, bonus, years_employed, remote (boolean)}',
  'data/expenses: 800 rows {id, employee_id, category (travel|equipment|software|meals|office|training), amount, description, status (pending|approved|rejected|reimbursed), date "YYYY-MM-DD"}',
];

// ---------------------------------------------------------------- policy documents

interface Doc {
  id: string;
  title: string;
  topics: string[];
  department: string;
  content: string;
  updated_at: string;
}

/** [title, department, topics, content]: the 40 documents of the reference, in order. */
const DOCS: Array<[string, string, string[], string]> = [
  [
    'Remote Work Guidelines',
    'HR',
    ['remote work', 'home office'],
    'Employees may work from home up to four days a week with manager agreement. Core hours are 10:00 to 15:00.',
  ],
  [
    'Home Office Setup Requirements',
    'HR',
    ['remote work', 'equipment', 'ergonomics'],
    'Your home workspace must meet the desk, chair, and monitor specifications in the appendix before remote days begin.',
  ],
  [
    'Remote Work Security Protocol',
    'IT',
    ['remote work', 'security', 'vpn'],
    'Connect through the company VPN, lock your screen when away and never use public Wi-Fi without the VPN.',
  ],
  [
    'Travel Expense Policy',
    'Finance',
    ['expense reimbursement', 'travel'],
    'Book economy travel through the portal. Submit receipts within 30 days for reimbursement.',
  ],
  [
    'Equipment Purchase Reimbursement',
    'Finance',
    ['expense reimbursement', 'equipment'],
    'Equipment up to 500 EUR is reimbursed with a receipt and manager approval.',
  ],
  [
    'Meal and Entertainment Expenses',
    'Finance',
    ['expense reimbursement', 'meals'],
    'Client meals are reimbursed up to 60 EUR per person; alcohol is not reimbursed.',
  ],
  [
    'Policy WFH-2024-REIMB',
    'HR',
    ['remote work', 'expense reimbursement', 'home office'],
    'Employees working from home may claim internet and electricity costs up to 40 EUR per month.',
  ],
  [
    'Data Classification Policy',
    'IT',
    ['security', 'compliance'],
    'Classify data as public, internal, confidential or restricted and handle it by its class.',
  ],
  [
    'Password and Authentication Standards',
    'IT',
    ['security', 'mfa'],
    'Passwords have at least 14 characters; multi-factor authentication is required for every system.',
  ],
  [
    'Incident Response Procedure',
    'IT',
    ['security', 'incident'],
    'Report a suspected incident to the on-call engineer within one hour; do not power off affected machines.',
  ],
  [
    'Performance Review Process',
    'HR',
    ['performance'],
    'Reviews happen twice a year with self-assessment, peer feedback and a manager conversation.',
  ],
  [
    'Promotion Criteria and Process',
    'HR',
    ['career'],
    'Promotions are decided by a calibration committee based on impact at the next level.',
  ],
  [
    'Employee Benefits Overview',
    'HR',
    ['benefits'],
    'Health insurance, pension contributions and a yearly wellness budget are offered to all staff.',
  ],
  [
    'Paid Time Off Policy',
    'HR',
    ['pto', 'sick leave'],
    'Full-time staff have 25 days of paid time off; sick leave needs a doctor note after three days.',
  ],
  [
    'Software Request Process',
    'IT',
    ['software'],
    'Request software through the service desk; licences are approved by the budget owner.',
  ],
  [
    'Hardware Refresh Policy',
    'IT',
    ['hardware'],
    'Laptops are replaced every four years or when repair costs exceed half their value.',
  ],
  [
    'Bring Your Own Device Policy',
    'IT',
    ['byod', 'security'],
    'Personal phones may read company mail after enrolling in device management.',
  ],
  [
    'Training and Certification Budget',
    'HR',
    ['training', 'certification', 'reimbursement'],
    'Each employee has a yearly training budget for courses and conferences. For professional certification exam fees, see the dedicated certification policy.',
  ],
  [
    'Conference Attendance Policy',
    'HR',
    ['conferences'],
    'Attending a conference needs manager approval and a short write-up afterwards.',
  ],
  [
    'Certification Reimbursement',
    'HR',
    ['certification', 'expense reimbursement'],
    'Exam fees for professional certifications are reimbursed in full once the exam is passed; one retake is covered.',
  ],
  [
    'Code of Conduct',
    'Legal',
    ['compliance'],
    'Treat colleagues and customers with respect and follow the law in every country we work in.',
  ],
  [
    'Anti-Harassment Policy',
    'Legal',
    ['compliance'],
    'Harassment of any kind is not tolerated; reports are handled confidentially.',
  ],
  [
    'Conflict of Interest Disclosure',
    'Legal',
    ['compliance'],
    'Disclose outside jobs, investments or family ties that could influence business decisions.',
  ],
  [
    'Internal Communication Guidelines',
    'HR',
    ['communication'],
    'Use the team channels for work topics and keep direct messages for personal matters.',
  ],
  [
    'External Communication Policy',
    'Legal',
    ['communication'],
    'Only the press office speaks to journalists on behalf of the company.',
  ],
  [
    'New Hire Onboarding Checklist',
    'HR',
    ['onboarding'],
    'In the first week: accounts, buddy assignment, team introductions and the benefits session.',
  ],
  [
    'IT Setup for New Employees',
    'IT',
    ['onboarding'],
    'New employees receive a laptop with standard software and accounts on their first day.',
  ],
  [
    'Office Access and Hours',
    'Facilities',
    ['office'],
    'Offices are open from 07:00 to 20:00; badges give access outside these hours.',
  ],
  ['Meeting Room Booking', 'Facilities', ['office'], 'Book rooms in the calendar; free a room you no longer need.'],
  ['Visitor Policy', 'Facilities', ['office'], 'Visitors sign in at the reception and are accompanied at all times.'],
  [
    'Corporate Card Usage Policy',
    'Finance',
    ['corporate card'],
    'The corporate card is for business purchases only; reconcile statements monthly.',
  ],
  [
    'Expense Report Submission Deadlines',
    'Finance',
    ['expense reimbursement'],
    'Expense reports are due by the fifth working day of the following month.',
  ],
  ['Hybrid Work Schedule', 'HR', ['remote work'], 'Teams agree on two shared office days per week.'],
  [
    'Remote Work Eligibility',
    'HR',
    ['remote work'],
    'Roles that need on-site equipment are not eligible for full remote work.',
  ],
  ['Intellectual Property Policy', 'Legal', ['ip'], 'Work created for the company belongs to the company.'],
  ['Data Retention Policy', 'Legal', ['compliance'], 'Customer records are kept for seven years, then deleted.'],
  [
    'Emergency Procedures',
    'Facilities',
    ['safety'],
    'In a fire alarm leave by the nearest exit and gather at the assembly point.',
  ],
  [
    'Sustainability Initiatives',
    'Facilities',
    ['sustainability'],
    'We reduce waste, offer bike parking and buy green electricity.',
  ],
  [
    'Parental Leave Policy',
    'HR',
    ['parental leave'],
    'Parents receive 20 weeks of paid parental leave, to be taken within two years of the birth.',
  ],
  [
    'Sabbatical Leave Program',
    'HR',
    ['sabbatical', 'leave'],
    'After five years of service employees may take an unpaid sabbatical of up to six months.',
  ],
];

export const documents: Doc[] = DOCS.map(([title, department, topics, content], i) => ({
  id: `DOC-${String(i + 1).padStart(3, '0')}`,
  title,
  topics,
  department,
  content,
  updated_at: `2025-${String((i % 12) + 1).padStart(2, '0')}-15`,
}));

const searchText = (d: Doc): string => [d.title, ...d.topics, d.content, d.department].join(' ').toLowerCase();

/** The reference's search: every lower-cased space-separated term is a substring of the document's text. */
export function search(args: { query: string; limit?: number; cursor?: string | null }) {
  const terms = args.query.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = documents.filter((d) => terms.every((t) => searchText(d).includes(t)));
  const limit = args.limit ?? 10;
  const from = args.cursor ? Number(args.cursor) : 0;
  const page = hits.slice(from, from + limit);
  const next = from + limit;
  return {
    results: page.map(({ id, title, topics, department }) => ({ id, title, topics, department })),
    cursor: next < hits.length ? String(next) : null,
    has_more: next < hits.length,
    total: hits.length,
  };
}

export const fetchDoc = (args: { id: string }): Doc | null => documents.find((d) => d.id === args.id) ?? null;
