// static/js/rr/memo.js: one report per survey and question, never re-drawn; fails closed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { DONE, Memo, StorageBlockedError, SUBMISSION, openMemo } from "../../static/js/rr/memo.js";
import { FakeStorage, choice, cryptoSource, loadAllKinds, noDraws, queueSource, wordsFor, yesNo } from "./support.mjs";

await loadAllKinds(); // every kind's page module, as respond.js loads them

const COIN = yesNo("forced_response", { truth: 2 ** 52, yes: 3 * 2 ** 51 });
COIN.key = "cheated";
const VOTE = choice(["a", "b", "c"], 7088540092449512);

describe("memoized reports", () => {
  it("stores the first report before returning it, under deniable:<slug>:<key>", () => {
    const storage = new FakeStorage();
    const memo = openMemo(() => storage, "s1");
    const fill = queueSource(wordsFor(2 ** 52)); // a forced YES
    const first = memo.draw(COIN, false, fill);
    assert.deepEqual(first, { reported: true, branch: "yes", fresh: true });
    assert.equal(storage.getItem("deniable:s1:cheated"), "true");
    assert.equal(memo.reported(COIN), true);
  });

  it("a second call returns the memoized report and never draws again", () => {
    const memo = openMemo(() => new FakeStorage(), "s1");
    const first = memo.draw(VOTE, "b", cryptoSource);
    for (const truth of ["a", "b", "c"]) {
      // noDraws throws if the randomizer asks for a single word.
      assert.deepEqual(memo.draw(VOTE, truth, noDraws), { reported: first.reported, fresh: false });
    }
  });

  it("survives a reload: a new Memo on the same storage reuses the report", () => {
    const storage = new FakeStorage();
    const first = openMemo(() => storage, "s1").draw(COIN, true, cryptoSource);
    const again = openMemo(() => storage, "s1").draw(COIN, false, noDraws);
    assert.deepEqual(again, { reported: first.reported, fresh: false });
  });

  it("keeps surveys and questions apart", () => {
    const storage = new FakeStorage();
    openMemo(() => storage, "s1").draw(COIN, true, queueSource(wordsFor(0))); // the truth: true
    const other = openMemo(() => storage, "s2");
    assert.equal(other.reported(COIN), undefined);
    assert.deepEqual(other.draw(COIN, true, queueSource(wordsFor(2 ** 53 - 1))), {
      reported: false,
      branch: "no",
      fresh: true,
    });
    assert.equal(storage.getItem("deniable:s1:cheated"), "true");
    assert.equal(storage.getItem("deniable:s2:cheated"), "false");
  });

  it("treats corrupt or impossible stored values as absent", () => {
    const storage = new FakeStorage();
    const memo = openMemo(() => storage, "s1");
    for (const raw of ["not json", '"yes"', "1", "null"]) {
      storage.setItem("deniable:s1:cheated", raw);
      assert.equal(memo.reported(COIN), undefined, raw);
    }
    storage.setItem("deniable:s1:vote", '"d"');
    assert.equal(memo.reported(VOTE), undefined);
  });

  it("never stores the true answer, only the report", () => {
    const storage = new FakeStorage();
    const memo = openMemo(() => storage, "s1");
    memo.draw(VOTE, "a", queueSource([...wordsFor(7088540092449512), 1])); // "other": c
    assert.deepEqual([...storage.map.entries()], [["deniable:s1:vote", '"c"']]);
  });

  it("keeps the submission id and the done flag under names no question key can take", () => {
    assert.match(SUBMISSION, /^~/);
    assert.match(DONE, /^~/);
    const memo = openMemo(() => new FakeStorage(), "s1");
    assert.equal(memo.set(SUBMISSION, "id-1"), true);
    assert.equal(memo.get(SUBMISSION), "id-1");
  });
});

describe("fails closed when storage is blocked", () => {
  it("no Memo when reaching localStorage throws (site data blocked)", () => {
    assert.equal(
      openMemo(() => {
        throw new Error("SecurityError");
      }, "s1"),
      null,
    );
    assert.equal(
      openMemo(() => null, "s1"),
      null,
    );
  });

  it("no Memo when storage accepts writes but keeps nothing", () => {
    assert.equal(
      openMemo(() => new FakeStorage({ dropWrites: true }), "s1"),
      null,
    );
    assert.equal(
      openMemo(() => new FakeStorage({ throwOnWrite: true }), "s1"),
      null,
    );
  });

  it("a draw that cannot be stored throws, and nothing is kept to show", () => {
    const storage = new FakeStorage();
    const memo = new Memo(storage, "s1");
    assert.equal(memo.works(), true);
    storage.dropWrites = true; // storage fails after the page started
    assert.throws(() => memo.draw(COIN, true, cryptoSource), StorageBlockedError);
    assert.equal(memo.reported(COIN), undefined);
    storage.throwOnWrite = true;
    assert.throws(() => memo.draw(COIN, true, cryptoSource), StorageBlockedError);
    assert.equal(storage.map.size, 0);
  });
});

describe("memo scope (issue 21 item 8)", async () => {
  const { memoScope, tokenTag } = await import("../../static/js/rr/memo.js");
  it("is the server's scope, plus the invitation's tag on invite-only surveys", () => {
    const open = { access: "open", memo_scope: "abc" };
    const invite = { access: "invite", memo_scope: "abc" };
    assert.equal(memoScope(open, "tok"), "abc");
    assert.equal(memoScope(invite, null), "abc");
    assert.notEqual(memoScope(invite, "token-a"), memoScope(invite, "token-b"));
    assert.equal(memoScope(invite, "token-a"), memoScope(invite, "token-a"));
    assert.ok(!memoScope(invite, "token-a").includes("token-a")); // the token is never stored
  });
  it("tags tokens without collisions over many random tokens", () => {
    const tags = new Set();
    for (let i = 0; i < 20000; i++) tags.add(tokenTag(`t-${i}-${(i * 2654435761) % 1000003}`));
    assert.equal(tags.size, 20000);
  });
});
