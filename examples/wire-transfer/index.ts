/** The wire-transfer example: agent, tools, fake bank and recorded model answers. */
export {
  answersFile,
  cancelHold,
  defaultInput,
  executeWire,
  managerDecision,
  prepareWire,
  requestApproval,
  wireTransfer,
  WireInput,
} from './agent.ts';
export { type BankRecord, DEFAULT_BANK_FILE, appliedOperations, bank, bankFile, readBank } from './bank.ts';
export { wireTransfer as default } from './agent.ts';
