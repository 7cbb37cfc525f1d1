import { connectDatabase } from "../db/client.ts";
export default {
  async fetch(req: Request, env: any) {
    const db = connectDatabase({ url: env.DATABASE_URL, wsProxy: env.DB_WS_PROXY });
    const r = await db.query("select count(*)::int as n from organisations");
    await db.close();
    return Response.json(r.rows);
  },
};
