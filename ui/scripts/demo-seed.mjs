// Fills a running `flowledger serve` with demo data for trying the UI by hand and for
// screenshots: an order process (with diagram, forms, a decision, an external task that fails
// into an incident) and the README's invoice process (no diagram interchange: laid out by the UI).
// Usage: node scripts/demo-seed.mjs [http://127.0.0.1:8080]   (basic auth: FLOWLEDGER_AUTH=user:pw)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ui = join(dirname(fileURLToPath(import.meta.url)), "..");
const base = (process.argv[2] ?? process.env.FLOWLEDGER_URL ?? "http://127.0.0.1:8080") + "/engine-rest";
const auth = process.env.FLOWLEDGER_AUTH
  ? { Authorization: `Basic ${Buffer.from(process.env.FLOWLEDGER_AUTH).toString("base64")}` }
  : {};

async function call(method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: { ...auth, ...(body instanceof FormData ? {} : { "Content-Type": "application/json" }) },
    body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function deploy(name, files) {
  const form = new FormData();
  form.set("deployment-name", name);
  form.set("enable-duplicate-filtering", "true");
  for (const file of files) {
    form.append(file.split("/").pop(), new Blob([readFileSync(file)]), file.split("/").pop());
  }
  return call("POST", "/deployment/create", form);
}

const v = (value, type) => (type ? { value, type } : { value });

await deploy("order", [join(ui, "demo", "order.bpmn"), join(ui, "demo", "risk.dmn")]);
await deploy("invoice", [join(ui, "..", "tools", "examples", "invoice.bpmn")]);

const orders = [
  ["A-100", "acme", 120],
  ["A-101", "new", 300],
  ["A-102", "globex", 9000],
  ["A-103", "initech", 50],
  ["A-104", "new", 700],
  ["A-105", "umbrella", 12000],
];
const started = [];
for (const [businessKey, customer, amount] of orders) {
  started.push(
    await call("POST", "/process-definition/key/order/start", {
      businessKey,
      variables: { customer: v(customer), amount: v(amount, "Long") },
    }),
  );
}

// review two of the risky orders
const reviews = await call("GET", "/task?taskDefinitionKey=review&sortBy=created&sortOrder=asc");
for (const task of reviews.slice(0, 2)) {
  await call("POST", `/task/${task.id}/claim`, { userId: "demo" });
  await call("POST", `/task/${task.id}/complete`, {
    variables: { approved: v(true), discount: v(5, "Long"), priority: v("urgent") },
  });
}

// the shipping worker: ships one order, fails another for good (an incident)
const locked = await call("POST", "/external-task/fetchAndLock", {
  workerId: "shipper",
  maxTasks: 10,
  topics: [{ topicName: "shipping", lockDuration: 60000 }],
});
if (locked.length > 0) {
  await call("POST", `/external-task/${locked[0].id}/complete`, {
    workerId: "shipper",
    variables: { trackingNumber: v("TRK-1") },
  });
}
if (locked.length > 1) {
  await call("POST", `/external-task/${locked[1].id}/failure`, {
    workerId: "shipper",
    errorMessage: "Carrier API refused the parcel",
    retries: 0,
    retryTimeout: 0,
  });
}
for (const task of locked.slice(2)) {
  await call("POST", `/external-task/${task.id}/unlock`);
}

// invoices: one waits for approval, one is approved and ends
for (const [number, amount] of [
  ["INV-1", 5000],
  ["INV-2", 300],
]) {
  await call("POST", "/process-definition/key/invoice/start", {
    businessKey: number,
    variables: { amount: v(amount), invoiceNumber: v(number) },
  });
}

console.log(`seeded: ${started.length} orders, 2 invoices, on ${base}`);
