/** The PTC forms with effects: tool calls, `task` and `where`. */
import type { Form } from '../form.ts';
import type { Analyzer } from './analyzer.ts';
import type { Node, WhereOp } from './nodes.ts';
import { WHERE_OPS, describeForm, err, isSym } from './syntax.ts';
import { type Value, vec } from '../values.ts';

export function toolCall(az: Analyzer, name: string, f: Extract<Form, { kind: 'list' }>): Node {
  if (!az.tools.has(name) && az.deferTools === 0 && !az.unknownTools.has(name))
    az.unknownTools.set(name, f.items[0]!.span);
  const args = f.items.slice(1);
  if (args.length === 1) {
    const a = args[0]!;
    if (
      a.kind === 'string' ||
      a.kind === 'number' ||
      a.kind === 'keyword' ||
      a.kind === 'vector' ||
      a.kind === 'bool'
    ) {
      throw err(
        'invalid_tool_args',
        `tool/${name} takes named arguments, got ${describeForm(a)}`,
        f.span,
        `wrap arguments in a map: (tool/${name} {:key value})`,
      );
    }
  } else if (args.length > 1) {
    if (args.length % 2 !== 0) {
      throw err(
        'invalid_tool_args',
        `tool/${name} takes named arguments: a map or :key value pairs`,
        f.span,
        `(tool/${name} {:key value}) or (tool/${name} :key value)`,
      );
    }
    for (let i = 0; i < args.length; i += 2) {
      const k = args[i]!;
      if (k.kind !== 'keyword' && k.kind !== 'string' && k.kind !== 'symbol' && k.kind !== 'list') {
        throw err('invalid_tool_args', `tool/${name}: argument names must be keywords, got ${describeForm(k)}`, k.span);
      }
    }
  }
  return { kind: 'tool', name, args: args.map((a) => az.an(a, false)), span: f.span };
}

export function task(az: Analyzer, f: Extract<Form, { kind: 'list' }>): Node {
  if (f.items.length !== 3) {
    throw err(
      'invalid_arity',
      'expected (task "id" expr)',
      f.span,
      'a task has an id and one expression; wrap several in (do ...)',
    );
  }
  const idForm = f.items[1]!;
  if (isSym(idForm) && az.scope.lookup(idForm.name) === undefined && !az.globals.has(idForm.name)) {
    throw err(
      'unbound_var',
      `Undefined variable: ${idForm.name} (task ids are strings: (task "${idForm.name}" ...))`,
      idForm.span,
      `task ids are strings: (task "${idForm.name}" ...), or computed: (task (str "${idForm.name}_" id) ...)`,
    );
  }
  const id = az.an(idForm, false);
  const hit = idForm.kind === 'string' && az.opts.journal?.has(idForm.value) === true;
  if (hit) az.deferTools++;
  const saved = az.recurArity;
  az.recurArity = null;
  try {
    return { kind: 'task', id, body: az.an(f.items[2]!, false), span: f.span };
  } finally {
    az.recurArity = saved;
    if (hit) az.deferTools--;
  }
}

export function where(az: Analyzer, f: Extract<Form, { kind: 'list' }>): Node {
  const it = f.items;
  if (it.length !== 2 && it.length !== 4) {
    throw err(
      'invalid_where_form',
      `where expects (where field) or (where field op value), got ${it.length - 1} argument${it.length === 2 ? '' : 's'}`,
      f.span,
    );
  }
  const field = it[1]!;
  let path: Value;
  if (field.kind === 'keyword' || field.kind === 'string') path = field.value;
  else if (
    field.kind === 'vector' &&
    field.items.length > 0 &&
    field.items.every((x) => x.kind === 'keyword' || x.kind === 'string' || x.kind === 'number')
  ) {
    path = vec(field.items.map((x) => (x as { value: Value }).value));
  } else {
    throw err(
      'invalid_where_form',
      `where field must be a keyword or a vector path, got ${describeForm(field)}`,
      field.span,
    );
  }
  if (it.length === 2) return { kind: 'where', field: path, op: null, value: null, span: f.span };
  const opForm = it[2]!;
  if (!isSym(opForm) || !WHERE_OPS.has(opForm.name)) {
    throw err(
      'invalid_where_operator',
      `invalid where operator ${describeForm(opForm)}`,
      opForm.span,
      'operators: = not= > < >= <= includes in',
    );
  }
  return { kind: 'where', field: path, op: opForm.name as WhereOp, value: az.an(it[3]!, false), span: f.span };
}
