import { Client } from "@svc/sdk";
import { parse } from "../usage.ts";

/** `svc whoami`: the key, organization and project of the API key this client uses. */
export async function whoamiCommand(args: string[]): Promise<number | undefined> {
  const { values } = parse(args, {});
  const client = new Client();
  const me = await client.whoami();
  if (values.json) console.log(JSON.stringify(me, null, 2));
  else
    console.log(
      `key ${me.id}\norganization ${me.organizationId}\nproject ${me.projectId}\nserver ${client.baseUrl}`,
    );
  return 0;
}
