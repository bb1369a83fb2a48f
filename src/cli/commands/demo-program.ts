/**
 * What the model wrote, for the demos: the last program of the mission's last finished
 * pass (the one that returned the result), read from Temporal history as the console's
 * pass view reads it, cut to a few lines.
 */
import type { Client } from '@temporalio/client';

export async function workingProgram(client: Client, id: string, maxLines = 16): Promise<string> {
  const { missionPasses } = await import('../../console/mission/passes.ts');
  const passes = await missionPasses(client, id);
  const pass = [...passes].reverse().find((p) => p.state === 'done' && p.programs.some((x) => x.code !== null));
  const program = pass && [...pass.programs].reverse().find((x) => x.code !== null);
  if (!pass || !program) return '(no program recorded in history)';
  const lines = program.code!.trimEnd().split('\n');
  const shown =
    lines.length > maxLines ? [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`] : lines;
  const turns = pass.programs.length > 1 ? ` (its last of ${pass.programs.length} turns)` : '';
  return [
    `pass ${pass.pass}, turn ${program.turn}${turns}; every pass and program: the console's mission page`,
    ...shown.map((l) => `  ${l}`),
  ].join('\n');
}
