// Runs a plan of DynamoDB requests with the AWS SDK for JavaScript v3
// (@aws-sdk/client-dynamodb, found through NODE_PATH) and prints each
// answer; the plan and the answers are probe.py's.
//
// Usage: node probe.cjs PLAN.json ENDPOINT REGION
"use strict";
const fs = require("fs");
const { DynamoDBClient, PutItemCommand, GetItemCommand, QueryCommand } = require("@aws-sdk/client-dynamodb");

function toSDK(v) {
  const [t, x] = Object.entries(v)[0];
  switch (t) {
    case "B": return { B: Buffer.from(x, "base64") };
    case "BS": return { BS: x.map((m) => Buffer.from(m, "base64")) };
    case "L": return { L: x.map(toSDK) };
    case "M": return { M: item(x) };
  }
  return { [t]: x };
}

function fromSDK(v) {
  const [t, x] = Object.entries(v).find(([, m]) => m !== undefined);
  switch (t) {
    case "B": return { B: Buffer.from(x).toString("base64") };
    case "BS": return { BS: x.map((m) => Buffer.from(m).toString("base64")) };
    case "L": return { L: x.map(fromSDK) };
    case "M": return { M: Object.fromEntries(Object.entries(x).map(([k, m]) => [k, fromSDK(m)])) };
  }
  return { [t]: x };
}

function item(m) {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, toSDK(v)]));
}

async function main() {
  const [planPath, endpoint, region] = process.argv.slice(2);
  const plan = JSON.parse(fs.readFileSync(planPath, "utf8"));
  for (const p of plan) {
    const cfg = {
      endpoint, region: p.region || region, maxAttempts: 1,
      credentials: { accessKeyId: p.key || "none", secretAccessKey: p.secret || "none" },
    };
    if (p.unsigned) cfg.signer = { sign: async (request) => request };
    const db = new DynamoDBClient(cfg);
    const out = { name: p.name, code: "" };
    try {
      if (p.op === "put") {
        await db.send(new PutItemCommand({ TableName: p.table, Item: item(p.item) }));
      } else if (p.op === "get") {
        const r = await db.send(new GetItemCommand({ TableName: p.table, Key: item(p.keyValue), ConsistentRead: true }));
        if (r.Item) out.item = Object.fromEntries(Object.entries(r.Item).map(([k, v]) => [k, fromSDK(v)]));
      } else if (p.op === "query") {
        const r = await db.send(new QueryCommand({ TableName: p.table, KeyConditionExpression: p.condition, ExpressionAttributeNames: p.names, ExpressionAttributeValues: item(p.values) }));
        out.count = r.Count;
      }
    } catch (e) {
      out.code = e.name || String(e);
    }
    db.destroy();
    console.log(JSON.stringify(out));
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
