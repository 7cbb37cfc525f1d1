import { createHash } from "node:crypto";
import { connectNodeDatabase } from "../../db/node-client.ts";
import { seedDemoFiles } from "../../services/seed/demo-files.ts";

// The demo's files (services/seed/demo-files.ts), on the first start once the Worker answers:
// their bytes reach the local R2 only through the Worker's upload, with the demo key, and then
// take the fixed ids the OpenAPI examples name.

/** Uploads the demo's files to the Worker at `workerUrl` and gives them their fixed ids; answers how many. */
export async function uploadDemoFiles(databaseUrl: string, workerUrl: string, key: string): Promise<number> {
  const db = connectNodeDatabase(databaseUrl);
  let count = 0;
  try {
    await seedDemoFiles(
      db,
      async (file) => {
        const sha256 = createHash("sha256").update(file.bytes).digest("hex");
        const query = new URLSearchParams({ name: file.name, size: String(file.bytes.byteLength), sha256 });
        const response = await fetch(`${workerUrl}${file.path}?${query}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" },
          body: Buffer.from(file.bytes),
        });
        const text = await response.text();
        if (response.status !== 201) throw new Error(`uploading the demo's ${file.name}: ${response.status} ${text.slice(0, 200)}`);
        count++;
        return (JSON.parse(text) as { data: { id: string } }).data.id;
      },
      async (upload) => {
        const response = await fetch(`${workerUrl}${upload.path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(upload.body),
        });
        const text = await response.text();
        if (response.status !== 201) throw new Error(`starting the demo's upload: ${response.status} ${text.slice(0, 200)}`);
        return (JSON.parse(text) as { data: { id: string } }).data.id;
      },
    );
  } finally {
    await db.close();
  }
  return count;
}
