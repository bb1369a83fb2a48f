/**
 * The report job's fake services, sharing one JSON-lines file (REPORT_JOB_SERVICES_FILE,
 * default `.navigator/report-job-services.jsonl`): a website to crawl (read-only,
 * deterministic pages), an object store (upload) and a mail service (send). Uploads and
 * mails apply each idempotency key once, so a retried activity never uploads or mails twice.
 */
import { createHash } from 'node:crypto';
import { type Json, type ServiceRecord, ServiceError, applyOnce, readRecords } from '../shared/service-log.ts';

export type Operation = 'upload_report' | 'send_email';
export type ServiceCall = ServiceRecord<Operation>;

export const DEFAULT_SERVICES_FILE = '.navigator/report-job-services.jsonl';
export const servicesFile = (): string => process.env.REPORT_JOB_SERVICES_FILE || DEFAULT_SERVICES_FILE;

export const readServices = (file = servicesFile()): ServiceCall[] => readRecords<Operation>(file);
/** Calls that really happened, e.g. to assert "one upload". */
export const appliedCalls = (file = servicesFile()): ServiceCall[] =>
  readServices(file).filter((r) => r.outcome === 'applied');

const short = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 10);

export interface Page {
  url: string;
  title: string;
  status: number;
  latency_ms: number;
  errors: number;
}

/** The pages of a site: the same every time for the same site (a crawl is a read). */
export function crawl(site: string): Page[] {
  const paths = ['/', '/pricing', '/docs', '/docs/start', '/blog', '/login', '/checkout', '/status'];
  return paths.map((path, i) => {
    const h = parseInt(short(`${site}${path}`).slice(0, 6), 16);
    const broken = h % 7 === 0 || path === '/checkout';
    return {
      url: `https://${site}${path}`,
      title: path === '/' ? site : path.slice(1).replace('/', ' / '),
      status: broken ? 500 : 200,
      latency_ms: 120 + (h % 1400) + i * 10,
      errors: broken ? 1 + (h % 3) : 0,
    };
  });
}

/** Markdown-ish sections rendered as a small HTML document. */
export function render(
  title: string,
  sections: Array<{ heading: string; lines: string[] }>,
): { html: string; bytes: number } {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = sections
    .map((s) => `<h2>${esc(s.heading)}</h2>\n<ul>\n${s.lines.map((l) => `  <li>${esc(l)}</li>`).join('\n')}\n</ul>`)
    .join('\n');
  const html = `<!doctype html>\n<title>${esc(title)}</title>\n<h1>${esc(title)}</h1>\n${body}\n`;
  return { html, bytes: Buffer.byteLength(html) };
}

export const storage = {
  /** Stores a document; the URL names its content. */
  upload(args: { name: string; html: string }, key: string): Json {
    return applyOnce(servicesFile(), 'upload_report', args, key, () => {
      if (!/^[\w.-]+$/.test(args.name)) throw new ServiceError(`invalid object name ${JSON.stringify(args.name)}`);
      return { url: `https://reports.example/${args.name}?v=${short(args.html)}`, bytes: Buffer.byteLength(args.html) };
    });
  },
};

export const mail = {
  send(args: { to: string; subject: string; body: string }, key: string): Json {
    return applyOnce(servicesFile(), 'send_email', args, key, () => {
      if (!args.to.includes('@')) throw new ServiceError(`invalid recipient ${JSON.stringify(args.to)}`);
      return { message_id: `msg_${short(key)}`, to: args.to };
    });
  },
};
