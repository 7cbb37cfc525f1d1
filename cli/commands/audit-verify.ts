import { verifyAuditChain, type ChainReport } from "../../services/audit-log.ts";
import type { CommandSpec } from "../lib/command.ts";
import { CommandError } from "../lib/errors.ts";
import { parseUuid } from "../lib/validate.ts";

const auditVerify: CommandSpec<{ orgId: string }, ChainReport> = {
  name: "audit verify",
  description:
    "Checks an organisation's audit log (docs/audit-log.md): every entry's hash against its content and the\n" +
    "entry before it, the sequence unbroken, and the last entry against the chain's head. Exits 1 naming\n" +
    "the first entry that does not verify (edited, or after a gap).",
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
  render: (report) =>
    report.entries === 0
      ? `The audit log of ${report.orgId} holds no entries (its chain's head is at ${report.headSequence}).\n`
      : `The audit log of ${report.orgId} verifies: ${report.entries} entries, ${report.firstSequence} to ${report.lastSequence}` +
        `${report.firstSequence! > 1 ? ` (the ones before ${report.firstSequence} are past retention)` : ""}.\n`,
};

export default auditVerify;
