// The browser's outbox, as the command-line client's (docs/client.md): a finished check-in is
// saved in IndexedDB before anything is sent, under the id it was given when it was made, and
// leaves only when the server has stored it. Sent again after a failure it is the same bytes
// under the same id, which the server stores once. This file is the only one that talks to the
// server with the device key (measure.js reads the meter's design, which needs none), and the key
// travels in the Authorization header only, never in an address.

const DATABASE = "hearclear";
const STORE = "outbox";
const DEVICE_KEY = "hearclear-device";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "id" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function transact(mode, work) {
  const database = await open();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = database.transaction(STORE, mode);
      const result = work(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(result && "result" in result ? result.result : undefined);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  } finally {
    database.close();
  }
}

/** Keeps a check-in until the server has it: {id, venue, body (the JSON text), seconds}. */
export function keep(entry) {
  return transact("readwrite", (store) => store.put({ ...entry, state: "waiting", reason: null }));
}

/**
 * Check-ins kept while their page went away, until they are in IndexedDB: localStorage writes
 * before its call returns, which an IndexedDB transaction begun as a page goes away may never do.
 */
const LEFT_KEY = "hearclear-left";

function leftBehind() {
  try {
    const left = JSON.parse(localStorage.getItem(LEFT_KEY));
    return Array.isArray(left) ? left : [];
  } catch {
    return [];
  }
}

/**
 * Keeps a check-in as its page goes away (pagehide), and sends it at once if this browser has a
 * device: a keepalive request outlives the page, though its answer is never read. The check-in
 * waits in localStorage until a measuring page opens again, moves it into the outbox and sends it
 * again: the same bytes under the same id, which the server stores once.
 */
export function keepWhileLeaving(entry) {
  try {
    localStorage.setItem(LEFT_KEY, JSON.stringify([...leftBehind(), { ...entry, state: "waiting", reason: null }]));
  } catch {
    // The storage is full, or off (some private modes): the request below is the one way left.
  }
  const credentials = device();
  if (!credentials) return;
  // Not gzipped: CompressionStream answers after the page has gone.
  postCheckIn(entry.body, {}, credentials, { keepalive: true }).catch(() => {});
}

/** Every check-in still here, oldest first. */
export async function entries() {
  const left = leftBehind();
  if (left.length) {
    await transact("readwrite", (store) => left.forEach((entry) => store.put(entry)));
    localStorage.removeItem(LEFT_KEY);
  }
  const all = (await transact("readonly", (store) => store.getAll())) || [];
  return all.sort((a, b) => a.savedAt - b.savedAt);
}

function remove(id) {
  return transact("readwrite", (store) => store.delete(id));
}

/** A refused check-in the person has read of: it leaves this browser. */
export function dismiss(id) {
  return remove(id);
}

function refuse(entry, reason) {
  return transact("readwrite", (store) => store.put({ ...entry, state: "refused", reason }));
}

/** The device this browser registered as, if any: {device_id, token}. */
export function device() {
  try {
    return JSON.parse(localStorage.getItem(DEVICE_KEY));
  } catch {
    return null;
  }
}

/**
 * "browser: Chrome on Android": the user agent's family and system, never its version or more,
 * so that the server's calibration per device model can apply to everyone with the same browser.
 */
export function browserModel(userAgent) {
  const families = [
    [/Edg(e|A|iOS)?\//, "Edge"], [/OPR\//, "Opera"], [/SamsungBrowser\//, "Samsung Internet"], [/Firefox\/|FxiOS\//, "Firefox"],
    [/Chrome\/|CriOS\//, "Chrome"], [/Version\/[\d.]+.*Safari\//, "Safari"],
  ];
  const systems = [[/Android/, "Android"], [/iPhone|iPad|iPod/, "iOS"], [/Windows/, "Windows"], [/CrOS/, "ChromeOS"], [/Mac OS X/, "macOS"], [/Linux/, "Linux"]];
  const family = (families.find(([pattern]) => pattern.test(userAgent)) || [null, "another browser"])[1];
  const system = (systems.find(([pattern]) => pattern.test(userAgent)) || [null, "another system"])[1];
  return `browser: ${family} on ${system}`;
}

async function register() {
  const response = await fetch("/api/v1/devices", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: browserModel(navigator.userAgent), platform: "web" }),
  });
  if (!response.ok) throw new Waiting(response.status, await reason(response));
  const credentials = await response.json();
  localStorage.setItem(DEVICE_KEY, JSON.stringify(credentials));
  return credentials;
}

/** The server's words for a refusal, or its status. */
async function reason(response) {
  try {
    return (await response.json()).error.message;
  } catch {
    return `the server answered ${response.status}`;
  }
}

/**
 * The answers that refuse a check-in's content for good, as the command-line client takes them
 * (APIClient.Failure.rejectsCheckIn). Any other waits: 408, 429 and 5xx say "not now", and a
 * device the server does not take now (403, banned) may be taken later.
 */
const FINAL_REFUSALS = [400, 409, 413, 415, 422];

/** A failure after which the check-in waits and is sent again later. */
class Waiting extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The body as sent: gzip-compressed where the browser can (CompressionStream), as the client sends. */
async function encoded(text) {
  if (typeof CompressionStream === "undefined") return { body: text, headers: {} };
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return { body: await new Response(stream).arrayBuffer(), headers: { "Content-Encoding": "gzip" } };
}

/** A check-in's body, as `headers` say it is encoded, to the server as this browser's device. */
function postCheckIn(body, headers, credentials, options = {}) {
  return fetch("/api/v2/checkins", {
    ...options,
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json", Authorization: `Bearer ${credentials.token}` },
    body,
  });
}

async function upload(entry, credentials) {
  const { body, headers } = await encoded(entry.body);
  return postCheckIn(body, headers, credentials);
}

/**
 * Sends what waits, oldest first. Returns {stored: [{entry, receipt}], refused: [{entry, reason}],
 * waiting: [entry], problem}: what is still waiting stays for the next call (after a network
 * failure, or an answer that is not a final refusal). A refused check-in (the server said why)
 * stays listed with the reason and is not sent again.
 */
export async function send() {
  const result = { stored: [], refused: [], waiting: [], problem: null };
  for (const entry of await entries()) {
    if (entry.state === "refused") {
      result.refused.push({ entry, reason: entry.reason });
      continue;
    }
    if (result.problem) {
      result.waiting.push(entry);
      continue;
    }
    try {
      let credentials = device() || (await register());
      let response = await upload(entry, credentials);
      if (response.status === 401) {
        // This browser's device is unknown to the server (forgotten, or another server): a new one.
        localStorage.removeItem(DEVICE_KEY);
        credentials = await register();
        response = await upload(entry, credentials);
      }
      if (response.ok) {
        result.stored.push({ entry, receipt: await response.json() });
        await remove(entry.id);
      } else if (FINAL_REFUSALS.includes(response.status)) {
        const words = await reason(response);
        await refuse(entry, words);
        result.refused.push({ entry, reason: words });
      } else {
        throw new Waiting(response.status, await reason(response));
      }
    } catch (error) {
      result.problem = error instanceof Waiting ? error.message : "the server cannot be reached";
      result.waiting.push(entry);
    }
  }
  return result;
}

/**
 * Venues of this name within `radius` metres of `place` ({latitude, longitude}), as the server
 * lists them (GET /api/v1/venues: each word of the name, nearest first): [{id, name, distance_m}].
 */
export async function venuesNamed(name, place, radius) {
  const query = new URLSearchParams({ q: name, near: `${place.latitude},${place.longitude}`, radius: String(radius) });
  const response = await fetch(`/api/v1/venues?${query}`);
  if (!response.ok) throw new Error(await reason(response));
  return (await response.json()).venues.map((found) => ({ id: found.id, name: found.name, distance_m: found.distance_m }));
}

/**
 * Adds a venue as this browser's device (PUT /api/v1/venues/{id}), registering one first if it has
 * none, or a new one when the server no longer knows it. Returns null once added, else the
 * server's words for why not.
 */
export async function addVenue(id, venue) {
  const put = (credentials) =>
    fetch(`/api/v1/venues/${encodeURIComponent(id)}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${credentials.token}` },
      body: JSON.stringify(venue),
    });
  try {
    let response = await put(device() || (await register()));
    if (response.status === 401) {
      localStorage.removeItem(DEVICE_KEY);
      response = await put(await register());
    }
    return response.ok ? null : await reason(response);
  } catch (error) {
    return error instanceof Waiting ? error.message : "the server cannot be reached: try again when the phone is online";
  }
}

/**
 * "Forget this browser": the server deletes the device, its check-ins and their levels
 * (DELETE /api/v1/devices/me), and the key and the outbox leave this browser.
 */
export async function forget() {
  const credentials = device();
  if (credentials) {
    const response = await fetch("/api/v1/devices/me", { method: "DELETE", headers: { Authorization: `Bearer ${credentials.token}` } });
    if (!response.ok && response.status !== 401) throw new Error(await reason(response));
  }
  localStorage.removeItem(DEVICE_KEY);
  localStorage.removeItem(LEFT_KEY);
  await transact("readwrite", (store) => store.clear());
}
