// The measuring page without the server (docs/public-pages.md): a venue's "Measure here" page and
// the files it runs, as last fetched, answered when the server cannot be reached — a basement bar
// without signal is where measuring happens. Network first: while the server answers, the page and
// its scripts are always its current ones. A venue's own page passes through, never kept; nothing
// else does.
const CACHE = "hearclear-measuring";
const FILES = [
  "/public/measure.js", "/public/outbox.js", "/public/meter-worklet.js", "/public/sound-classes.js", "/public/public.css", "/public/favicon.svg",
];

const GATEWAY_FAILURES = [502, 503, 504];

function kept(url) {
  return url.origin === self.location.origin && (/^\/venues\/[^/]+\/measure$/.test(url.pathname) || FILES.includes(url.pathname));
}

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// A measuring page asks for itself and its files to be kept (the load that registered this worker
// did not pass through it), and is answered once they are; or for every page kept to go.
self.addEventListener("message", (event) => {
  // "Forget this browser": the pages kept say which venues this browser measured.
  if (event.data?.forget === true) return event.waitUntil(caches.delete(CACHE));
  if (typeof event.data?.keep !== "string" || !kept(new URL(event.data.keep, self.location.origin))) return;
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll([event.data.keep, ...FILES])).then(
    () => event.source?.postMessage({ kept: event.data.keep }),
    () => {},
  ));
});

/** A venue's own page, `/venues/{id}`: not kept (its answers must not be shown stale), but the way to its measuring page. */
function venuePage(url) {
  return url.origin === self.location.origin && /^\/venues\/[^/]+$/.test(url.pathname);
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET") return;
  if (venuePage(url) && event.request.mode === "navigate") return event.respondWith(venueOrItsMeasuring(event.request, url));
  if (!kept(url)) return;
  event.respondWith(
    fetch(event.request).then(
      async (response) => {
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(url.pathname, copy)));
          return response;
        }
        // A proxy in front of a server that is down answers for it (nginx: 502, 503, 504): the
        // server was not reached either.
        return (GATEWAY_FAILURES.includes(response.status) && (await caches.match(url.pathname))) || response;
      },
      async () => (await caches.match(url.pathname)) ?? Response.error(),
    ),
  );
});

/**
 * A venue's page, or where the server cannot be reached, its measuring page if it is kept: a
 * person at the venue without signal taps the venue they looked at before, and can measure it.
 */
async function venueOrItsMeasuring(request, url) {
  const measuring = `${url.pathname}/measure`;
  try {
    const response = await fetch(request);
    if (!GATEWAY_FAILURES.includes(response.status) || !(await caches.match(measuring))) return response;
  } catch (error) {
    if (!(await caches.match(measuring))) throw error;
  }
  return Response.redirect(measuring, 302);
}
