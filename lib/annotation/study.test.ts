import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createUser } from "@/lib/auth";
import { FACETS } from "@/lib/corpus";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { mulberry32 } from "@/lib/random";
import { highlightSegments, locateEvidence, parseEvidence } from "./evidence";
import { ratingsCsv, statisticsCsv, statisticsRows, studyReport } from "./report";
import { getSheet, getSheetItem, myStudies, saveRating, StudyClosedError } from "./sheet";
import { createStudy, planStudy, setStudyStatus, splitSizes, StudyPlanError, studyOptions, type CandidatePaper } from "./study";

/** n papers with 1-3 items per facet; every 7th paper lacks contributions (never eligible). */
function candidates(n: number, seed = 1): CandidatePaper[] {
  const random = mulberry32(seed);
  let id = 1;
  return Array.from({ length: n }, (_, p) => ({
    paperId: 1000 + p,
    key: `P${String(p).padStart(4, "0")}`,
    items: FACETS.filter((f) => !(p % 7 === 0 && f === "contributions")).flatMap((facet) =>
      Array.from({ length: 1 + Math.floor(random() * 3) }, (_, position) => ({ id: id++, facet, position })),
    ),
  }));
}

describe("planStudy", () => {
  const pool = candidates(90);
  const defaults = { papers: 50, coreItems: 40, annotatorIds: [7, 3, 5], seed: 42 };

  test("the paper's defaults give 200 items, a 40-item core and sheets of 92, 92 and 96", () => {
    const plan = planStudy(pool, defaults);
    assert.equal(plan.items.length, 200);
    assert.equal(plan.items.filter((i) => i.isCore).length, 40);
    assert.equal(plan.corePapers, 10);
    assert.deepEqual(
      plan.sheets.map((s) => [s.userId, s.items.length]),
      [
        [3, 92],
        [5, 92],
        [7, 96],
      ],
    );
    assert.equal(plan.eligible, 90 - 13); // papers 0, 7, …, 84 lack a facet
    // One item of each facet per sampled paper, from that paper, never from an ineligible one.
    const byPaper = new Map<number, typeof plan.items>();
    for (const i of plan.items) byPaper.set(i.paperId, [...(byPaper.get(i.paperId) ?? []), i]);
    assert.equal(byPaper.size, 50);
    for (const [paperId, items] of byPaper) {
      assert.deepEqual(
        items.map((i) => i.facet),
        [...FACETS],
      );
      assert.notEqual((paperId - 1000) % 7, 0);
      const source = pool.find((c) => c.paperId === paperId)!;
      for (const i of items) assert.ok(source.items.some((s) => s.id === i.facetItemId && s.facet === i.facet));
      assert.equal(new Set(items.map((i) => i.isCore)).size, 1, "a paper is wholly core or not");
    }
    // Core items are on every sheet; every other item on exactly one.
    const seen = new Map<number, number>();
    for (const s of plan.sheets) for (const i of s.items) seen.set(i, (seen.get(i) ?? 0) + 1);
    plan.items.forEach((item, i) => assert.equal(seen.get(i), item.isCore ? 3 : 1, `item ${i}`));
    // A sheet lists a paper's four items together, core papers interleaved with the rest.
    const first = plan.sheets[0].items.map((i) => plan.items[i]);
    for (let k = 0; k < first.length; k += 4) assert.equal(new Set(first.slice(k, k + 4).map((i) => i.paperId)).size, 1);
    assert.ok(
      first.slice(0, 40).some((i) => !i.isCore),
      "core papers are not all first",
    );
  });

  test("seeded and reproducible: same seed, same plan; another seed, another sample", () => {
    assert.deepEqual(planStudy(pool, defaults), planStudy([...pool].reverse(), defaults));
    assert.deepEqual(planStudy(pool, defaults), planStudy(pool, { ...defaults, annotatorIds: [5, 7, 3] }));
    const other = planStudy(pool, { ...defaults, seed: 43 });
    assert.notDeepEqual(
      other.items.map((i) => i.facetItemId),
      planStudy(pool, defaults).items.map((i) => i.facetItemId),
    );
  });

  test("splits, limits and option validation", () => {
    assert.deepEqual(splitSizes(40, 3), [13, 13, 14]);
    assert.deepEqual(splitSizes(5, 2), [2, 3]);
    assert.deepEqual(splitSizes(0, 2), [0, 0]);
    assert.throws(
      () => planStudy(pool, { ...defaults, papers: 80 }),
      (e) => e instanceof StudyPlanError && /only 77 papers/.test(e.message),
    );
    const noCore = planStudy(pool, { ...defaults, coreItems: 0, annotatorIds: [1] });
    assert.deepEqual(
      noCore.sheets.map((s) => s.items.length),
      [200],
    );
    const issues = (input: object) => {
      const r = studyOptions.safeParse({ name: "s", seed: 1, annotatorIds: [1, 2], ...input });
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    assert.deepEqual(issues({}), []);
    assert.match(issues({ coreItems: 42 }).join(), /coreItems: .*multiple of 4/);
    assert.match(issues({ papers: 5, coreItems: 24 }).join(), /coreItems: the core cannot exceed the study's 20 items/);
    assert.match(issues({ annotatorIds: [1] }).join(), /annotatorIds: a shared core needs at least two annotators/);
    assert.match(issues({ annotatorIds: [2, 2] }).join(), /listed twice/);
    assert.match(issues({ name: "  " }).join(), /name: give the study a name/);
    const parsed = studyOptions.parse({ name: "x", seed: "9", annotatorIds: ["1", "2"] });
    assert.deepEqual([parsed.papers, parsed.coreItems, parsed.corpus, parsed.seed], [50, 40, "acl-citegraph", 9]);
  });
});

describe("evidence and CSV helpers", () => {
  test("evidence snippets are located by offsets, or by their text when the offsets disagree", () => {
    const abstract = "We build a parser. It reaches 92 F1 on PTB. Code is public.";
    const ev = parseEvidence(
      JSON.stringify([
        { text: "It reaches 92 F1 on PTB.", score: 0.91, start: 19, end: 43 },
        { text: "We build a parser.", score: 0.8, start: 30, end: 48 }, // stale offsets
        { text: "not in the abstract", score: 0.5, start: 500, end: 520 },
        { bogus: true },
      ]),
    );
    assert.equal(ev.length, 3);
    assert.deepEqual(
      locateEvidence(abstract, ev).map((r) => [r.rank, abstract.slice(r.start, r.end)]),
      [
        [1, "It reaches 92 F1 on PTB."],
        [2, "We build a parser."],
      ],
    );
    assert.deepEqual(
      highlightSegments("abcdef", [
        { rank: 1, start: 1, end: 4 },
        { rank: 2, start: 3, end: 5 },
      ]),
      [
        { text: "a", ranks: [] },
        { text: "bc", ranks: [1] },
        { text: "d", ranks: [1, 2] },
        { text: "e", ranks: [2] },
        { text: "f", ranks: [] },
      ],
    );
    assert.deepEqual(parseEvidence("not json"), []);
    assert.deepEqual(parseEvidence("[]"), []);
  });
});

describe("studies in the store", { concurrency: false }, () => {
  let t: TestDb;
  let admin: number;
  let ann: number[];
  before(async () => {
    t = await createTestDb();
    const corpus = await t.db.corpus.create({ data: { name: "mini" } });
    for (let p = 0; p < 12; p++) {
      const paper = await t.db.paper.create({
        data: {
          corpusId: corpus.id,
          externalId: `M${p}`,
          title: `Paper ${p}`,
          titleSearch: `paper ${p}`,
          abstract: `Abstract of paper ${p}. We study thing ${p}.`,
        },
      });
      await t.db.facetItem.createMany({
        data: FACETS.flatMap((facet) => [0, 1].map((position) => ({ paperId: paper.id, facet, position, text: `${facet} ${position} of paper ${p}` }))),
      });
    }
    const rounds = 4;
    admin = (await createUser(t.db, { email: "admin@x.org", password: "admin-pass", role: "admin" }, { rounds })).id;
    ann = [];
    for (const e of ["a@x.org", "b@x.org", "c@x.org"]) ann.push((await createUser(t.db, { email: e, password: "annot-pass" }, { rounds })).id);
  });
  after(() => t.cleanup());

  test("createStudy stores items and sheets; annotators see and rate only their own", async () => {
    const study = await createStudy(t.db, { name: "Pilot", corpus: "mini", papers: 5, coreItems: 8, annotatorIds: [ann[0], ann[1]], seed: 3 }, admin);
    assert.equal(study.items, 20);
    assert.equal(study.coreItems, 8);
    assert.equal(study.expectedRatings, 8 * 2 + 12);
    assert.deepEqual(study.params.sheetSizes, { [ann[0]]: 12, [ann[1]]: 16 });

    const a = (await getSheet(t.db, study.id, ann[0]))!;
    const b = (await getSheet(t.db, study.id, ann[1]))!;
    assert.equal(a.entries.length, 12);
    assert.deepEqual(
      a.entries.map((e) => e.position),
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    assert.equal(await getSheet(t.db, study.id, ann[2]), null, "no sheet for an unassigned annotator");
    assert.deepEqual(
      (await myStudies(t.db, ann[0])).map((s) => [s.name, s.total, s.rated]),
      [["Pilot", 12, 0]],
    );
    assert.deepEqual(await myStudies(t.db, ann[2]), []);

    const coreIds = new Set((await t.db.studyItem.findMany({ where: { studyId: study.id, isCore: true } })).map((i) => i.id));
    const aOnly = a.entries.find((e) => !coreIds.has(e.studyItemId))!;
    const shared = a.entries.find((e) => coreIds.has(e.studyItemId))!;
    assert.ok(b.entries.some((e) => e.studyItemId === shared.studyItemId));
    assert.ok(!b.entries.some((e) => e.studyItemId === aOnly.studyItemId));

    // A's own item: visible with its paper; B can neither read nor rate it.
    const item = (await getSheetItem(t.db, study.id, ann[0], aOnly.studyItemId))!;
    assert.match(item.text, /of paper \d+$/);
    assert.match(item.paper.abstract, /^Abstract of paper/);
    assert.equal(await getSheetItem(t.db, study.id, ann[1], aOnly.studyItemId), null);
    assert.equal(await saveRating(t.db, study.id, ann[1], aOnly.studyItemId, { score: 1, rationale: "Not mine to rate." }), null);
    assert.equal(await getSheetItem(t.db, study.id + 1, ann[0], aOnly.studyItemId), null, "the study id must match");

    // A rates a shared item; B's view of it shows no rating (ratings stay private).
    const saved = await saveRating(t.db, study.id, ann[0], shared.studyItemId, { score: 5, rationale: "  Stated in the abstract. " });
    assert.deepEqual([saved?.rating.score, saved?.rating.rationale, saved?.rated, saved?.total], [5, "Stated in the abstract.", 1, 12]);
    assert.equal((await getSheetItem(t.db, study.id, ann[1], shared.studyItemId))!.rating, null);
    // Editing replaces the rating (one per item and annotator).
    await saveRating(t.db, study.id, ann[0], shared.studyItemId, { score: 4, rationale: "Slightly overstated." });
    assert.equal(await t.db.rating.count({ where: { studyItemId: shared.studyItemId } }), 1);
    assert.equal((await getSheetItem(t.db, study.id, ann[0], shared.studyItemId))!.rating?.score, 4);
    await assert.rejects(saveRating(t.db, study.id, ann[0], shared.studyItemId, { score: 6, rationale: "x y z" }), /score must be 1-5/);
    await assert.rejects(saveRating(t.db, study.id, ann[0], shared.studyItemId, { score: 3, rationale: " " }), /one-sentence rationale/);

    await setStudyStatus(t.db, study.id, "closed");
    await assert.rejects(saveRating(t.db, study.id, ann[0], shared.studyItemId, { score: 3, rationale: "Too late now." }), StudyClosedError);
    await setStudyStatus(t.db, study.id, "open");

    await assert.rejects(createStudy(t.db, { name: "x", corpus: "mini", papers: 2, coreItems: 0, annotatorIds: [admin], seed: 1 }, admin), /not an annotator/);
    await assert.rejects(createStudy(t.db, { name: "x", corpus: "mini", papers: 13, coreItems: 0, annotatorIds: [ann[0]], seed: 1 }, admin), /only 12 papers/);
    await assert.rejects(
      createStudy(t.db, { name: "x", corpus: "nope", papers: 1, coreItems: 0, annotatorIds: [ann[0]], seed: 1 }, admin),
      /no corpus named "nope"/,
    );
  });

  test("the report computes every statistic from the stored ratings and exports them", async () => {
    const study = await createStudy(t.db, { name: "Full", corpus: "mini", papers: 6, coreItems: 12, annotatorIds: [ann[0], ann[1], ann[2]], seed: 11 }, admin);
    // Deterministic scores: core items get 5/5/4, 5/5/5, 4/3/4 …; own items alternate 5 and 4.
    const coreScores = [
      [5, 5, 4],
      [5, 5, 5],
      [4, 3, 4],
      [5, 4, 5],
      [2, 3, 3],
      [5, 5, 5],
    ];
    const coreItems = await t.db.studyItem.findMany({ where: { studyId: study.id, isCore: true }, orderBy: { position: "asc" } });
    for (const [k, item] of coreItems.entries())
      for (const [u, user] of ann.entries()) await saveRating(t.db, study.id, user, item.id, { score: coreScores[k % 6][u], rationale: `Core rating ${k}.` });
    for (const user of ann) {
      const sheet = (await getSheet(t.db, study.id, user))!;
      for (const e of sheet.entries.filter((x) => x.score === null))
        await saveRating(t.db, study.id, user, e.studyItemId, { score: e.position % 2 ? 5 : 4, rationale: "Own item." });
    }
    const report = (await studyReport(t.db, study.id, 200))!;
    assert.equal(report.annotators.length, 3);
    assert.deepEqual(
      report.annotators.map((a) => a.assigned),
      [16, 16, 16],
    );
    assert.ok(report.annotators.every((a) => a.summary.n === 16));
    assert.equal(report.pooled.items, 24);
    assert.equal(
      Object.values(report.pooled.perFacet).reduce((n, g) => n + g.items, 0),
      24,
    );
    assert.ok(report.pooled.shareCi && report.pooled.shareCi.lower <= report.pooled.share! && report.pooled.share! <= report.pooled.shareCi.upper);

    // Core: 12 items = the six score patterns twice. Exact: patterns 2 and 6 → 4/12.
    assert.equal(report.core.items, 12);
    assert.deepEqual(report.core.raw, { units: 12, exact: 4, withinOne: 12, unanimousGrounded: 8, groundedDecisionAgree: 10 });
    assert.deepEqual(
      report.core.pairwise.map((p) => [p.aEmail, p.bEmail, p.units, p.exact]),
      [
        ["a@x.org", "b@x.org", 12, 6],
        ["a@x.org", "c@x.org", 12, 8],
        ["b@x.org", "c@x.org", 12, 6],
      ],
    );
    assert.ok(report.core.alphaOrdinal.alpha !== null && report.core.alphaOrdinal.lower !== null);
    assert.ok(report.core.alphaOrdinal.lower! <= report.core.alphaOrdinal.alpha! && report.core.alphaOrdinal.alpha! <= report.core.alphaOrdinal.upper!);
    assert.ok(report.core.alphaBinary !== null);
    assert.equal(report.core.ac1?.units, 12);

    const ratings = ratingsCsv(report).trimEnd().split("\r\n");
    assert.equal(ratings[0], "study_item_id,item_position,paper_id,paper_title,facet,item,core,annotator,score,rationale,updated_at");
    assert.equal(ratings.length, 1 + 48);
    const stats = statisticsCsv(report);
    assert.match(stats, /^section,statistic,group,value,ci_lower,ci_upper,n\r\n/);
    assert.match(stats, /\r\ncore,gwet_ac1_ge4,all,[0-9.]+,-?[0-9.]+,[0-9.]+,12\r\n/);
    assert.equal(statisticsRows(report).filter((r) => r[1] === "pairwise_exact").length, 3);
  });
});
