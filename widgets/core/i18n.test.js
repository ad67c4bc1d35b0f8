import test from "node:test";
import assert from "node:assert/strict";
import { STRINGS, createLocale } from "./i18n.js";

test("German hosts get German words, kilometres and German number formats", () => {
  const de = createLocale("de-DE", "Europe/Berlin");
  assert.equal(de.t("computingRoute"), "Route wird berechnet…");
  assert.equal(de.distance(12_345), "12 km");
  assert.equal(de.distance(4_321), "4,3 km");
  assert.equal(de.distance(850), "850 m");
  assert.equal(de.duration(6 * 3600 + 5 * 60), "6 Std. 5 Min.");
  assert.equal(de.t("incidentsN", { n: 1 }), "1 Verkehrsmeldung in diesem Gebiet");
  assert.equal(de.t("incidentsN", { n: 1234 }), "1.234 Verkehrsmeldungen in diesem Gebiet");
});

test("US and UK hosts get miles and feet, everyone else kilometres", () => {
  assert.equal(createLocale("en-US").distance(16_093.44), "10 mi");
  assert.equal(createLocale("en-GB").distance(1609.344 * 2.5), "2.5 mi");
  assert.equal(createLocale("en-US").distance(30), "98 ft");
  assert.equal(createLocale("en-IE").distance(16_093.44), "16 km");
  assert.match(createLocale("fr-FR").distance(16_093.44), /^16\s?km$/u);
});

test("an unsupported language keeps English words with its own number format", () => {
  const ja = createLocale("ja-JP");
  assert.equal(ja.t("nothingFound"), "Nothing found");
  assert.equal(ja.number(1234567), "1,234,567");
  const pl = createLocale("pl-PL");
  assert.equal(pl.t("routes"), "Routes");
  assert.equal(pl.distance(4321), "4,3 km");
});

test("times are shown in the host's time zone, and a bad zone or locale falls back instead of throwing", () => {
  const iso = "2026-01-05T08:00:00Z";
  assert.match(createLocale("en-GB", "Europe/Amsterdam").dateTime(iso), /09:00/);
  assert.match(createLocale("en-GB", "Asia/Tokyo").dateTime(iso), /17:00/);
  assert.equal(createLocale("en-US", "Not/AZone").timeZone, undefined);
  assert.equal(createLocale("not a locale!").locale, "en-US");
  assert.equal(createLocale("en-US").dateTime("yesterday-ish"), "");
});

test("every language has every word English has", () => {
  const keys = (o, prefix = "") =>
    Object.entries(o).flatMap(([k, v]) => (v && typeof v === "object" && !Array.isArray(v) ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
  const english = keys(STRINGS.en).sort();
  for (const [lang, words] of Object.entries(STRINGS)) assert.deepEqual(keys(words).sort(), english, lang);
});
