import { verifyAuditChain, type ChainReport } from "../../services/audit-log.ts";
import type { CommandSpec } from "../lib/command.ts";
import { CommandError } from "../lib/errors.ts";
import { parseUuid } from "../lib/validate.ts";

const auditVerify: CommandSpec<{ orgId: string }, ChainReport> = {
  name: "audit verify",
  description:
    "Checks an organisation's audit log (docs/audit-log.md): every entry's hash against its content and the\n" +
    "entry before it, the sequence unbroken, the first entry kept right after what retention pruned (or the\n" +
    "first ever), and the last entry against the chain's head. Exits 1 naming the first entry that does not\n" +
    "verify (edited, or after a gap: a prefix deleted by any other hand than retention's is one).",
  options: {
    org: { type: "string", placeholder: "ID", description: "the organisation's id", required: true },
  },
  parse: (args) => ({ orgId: parseUuid(args.required("org"), "--org") }),
  async run({ db }, { orgId }) {
    const report = await verifyAuditChain({ ctx: { db }, input: { orgId } });
    if (!report) throw new CommandError(`no organisation with id ${orgId}`);
    if (!report.ok) {
      const bad = report.firstBad!;
      throw new CommandError(`the audit log does not verify at entry ${bad.sequence}${bad.id ? ` (${bad.id})` : ""}: ${bad.problem}`);
    }
    return report;
  },
  render: (report) => {
    const pruned = report.prunedThrough
      ? ` (retention pruned entries 1 to ${report.prunedThrough.sequence}, the last of them from ${report.prunedThrough.occurredAt ?? "before this was recorded"})`
      : "";
    return report.entries === 0
      ? `The audit log of ${report.orgId} holds no entries (its chain's head is at ${report.headSequence})${pruned}.\n`
      : `The audit log of ${report.orgId} verifies: ${report.entries} entries, ${report.firstSequence} to ${report.lastSequence}${pruned}.\n`;
  },
};

export default auditVerify;
