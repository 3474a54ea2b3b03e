// "Add a venue" (docs/public-pages.md): a place the search did not find, added from the phone as
// `hearclear venue add` adds one, then measured. Venues of that name near the place are offered
// first, so that one place is not added twice; the venue takes the phone's time zone, since the
// person is there. outbox.js talks to the server; locate.js offers the phone's location.
import * as outbox from "./outbox.js";

const element = (id) => document.getElementById(id);
const [form, nameField, placeField, kindField, zoneText, statusText, matches, matchList, addAnyway] =
  ["add-venue", "name", "place", "kind", "zone", "status", "matches", "match-list", "add-anyway"].map(element);
const radius = Number(form.dataset.radius);
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** {latitude, longitude} from "lat,lng" as typed, or null when it is not a place on Earth. */
function place(text) {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.length !== 2 || parts.some((part) => part === "")) return null;
  const [latitude, longitude] = parts.map(Number);
  const valid = Number.isFinite(latitude) && Number.isFinite(longitude) && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
  return valid ? { latitude, longitude } : null;
}

/**
 * The new venue's id: its name in lower-case ASCII letters and digits joined by hyphens (accents
 * dropped), then six random characters, so that two places of one name get two ids. Ids are
 * [A-Za-z0-9_-]{1,64} (VenueID).
 */
function newID(name) {
  const words = name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().match(/[a-z0-9]+/g) || ["venue"];
  const random = Array.from(crypto.getRandomValues(new Uint8Array(6)), (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join("");
  return `${words.join("-").slice(0, 48).replace(/-$/, "")}-${random}`;
}

function say(text) {
  statusText.textContent = text;
}

/** What the form holds, or null after saying what is missing. */
function venue() {
  const name = nameField.value.trim();
  if (name === "") {
    say("Type the venue's name.");
    nameField.focus();
    return null;
  }
  const where = place(placeField.value);
  if (!where) {
    say("Type where it is as latitude,longitude (for example -33.87,151.21), or tap “Use my location”.");
    placeField.focus();
    return null;
  }
  return { name, latitude: where.latitude, longitude: where.longitude, timezone: zone, ...(kindField.value ? { kind: kindField.value } : {}) };
}

/** Venues of the name near the place, as links to measure them; true when there are any. */
async function offerMatches(newVenue) {
  const found = await outbox.venuesNamed(newVenue.name, newVenue, radius);
  matchList.replaceChildren(
    ...found.map((match) => {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = `/venues/${encodeURIComponent(match.id)}/measure`;
      link.textContent = `Measure ${match.name}`;
      item.append(link, ` (${Math.round(match.distance_m)} m away)`);
      return item;
    }),
  );
  matches.hidden = found.length === 0;
  return found.length > 0;
}

async function add(checked) {
  const newVenue = venue();
  if (!newVenue) return;
  // One tap at a time: a second would add the venue twice.
  const controls = [...form.elements, addAnyway];
  for (const control of controls) control.disabled = true;
  try {
    say("Adding…");
    if (!checked) {
      try {
        if (await offerMatches(newVenue)) {
          say("Already listed? Measure it from the list below, or add yours anyway.");
          return;
        }
      } catch {
        // Offline or refused: the venue is added without the check, as the person asked.
      }
    }
    const id = newID(newVenue.name);
    const problem = await outbox.addVenue(id, newVenue);
    if (problem) {
      say(`Not added: ${problem}`);
      return;
    }
    location.assign(`/venues/${encodeURIComponent(id)}/measure`);
  } finally {
    for (const control of controls) control.disabled = false;
  }
}

zoneText.textContent = `Its hours will be in ${zone}, this phone's time zone.`;
form.hidden = false;
form.addEventListener("submit", (event) => {
  event.preventDefault();
  add(false);
});
addAnyway.addEventListener("click", () => add(true));
