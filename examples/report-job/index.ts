/** The durable report job example: agent, tools, fake services and recorded model answers. */
export {
  ReportInput,
  answersFile,
  crawlSite,
  defaultInput,
  renderReport,
  reportJob,
  sendEmail,
  uploadReport,
} from './agent.ts';
export {
  DEFAULT_SERVICES_FILE,
  type Page,
  type ServiceCall,
  appliedCalls,
  crawl,
  mail,
  readServices,
  render,
  servicesFile,
  storage,
} from './services.ts';
export { reportJob as default } from './agent.ts';
