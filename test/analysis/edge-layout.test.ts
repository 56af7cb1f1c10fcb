/**
 * The edge layout PageRank iterates over: every CSR edge lands exactly once,
 * near edges in their target's in-edge row, far edges grouped by target
 * block, sources ascending in both (the order that keeps the passes local
 * and the additions into each score in source order).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildCsr, type Csr } from '../../src/analysis/csr.js';
import { layoutEdges, type EdgeLayout } from '../../src/analysis/edge-layout.js';
import { powerLawGraph } from './synthetic.js';

function csrEdges(g: Csr): string[] {
  const out: string[] = [];
  for (let u = 0; u < g.nodeCount; u++) {
    for (let j = g.offsets[u]!; j < g.offsets[u + 1]!; j++) out.push(`${u}>${g.targets[j]}`);
  }
  return out.sort();
}

function layoutEdgeList(l: EdgeLayout): string[] {
  const out: string[] = [];
  for (let v = 0; v < l.nodeCount; v++) {
    for (let j = l.nearOffsets[v]!; j < l.nearOffsets[v + 1]!; j++) out.push(`${l.nearSources[j]}>${v}`);
  }
  for (let k = 0; k < l.farSources.length; k++) out.push(`${l.farSources[k]}>${l.farTargets[k]}`);
  return out.sort();
}

describe('layoutEdges', () => {
  const g = powerLawGraph(3000, 20000, 11);
  const csr = buildCsr(g.nodeCount, g.src, g.dst, g.length, false);

  it('splits at the window and orders far edges by (target block, source)', () => {
    const window = 64;
    const block = 500;
    const l = layoutEdges(csr, { nearWindowNodes: window, blockNodes: block });
    assert.deepEqual(layoutEdgeList(l), csrEdges(csr));
    assert.ok(l.nearSources.length > 0 && l.farSources.length > 0, 'both parts used');
    for (let v = 0; v < l.nodeCount; v++) {
      for (let j = l.nearOffsets[v]!; j < l.nearOffsets[v + 1]!; j++) {
        assert.ok(Math.abs(l.nearSources[j]! - v) < window);
        if (j > l.nearOffsets[v]!) assert.ok(l.nearSources[j]! > l.nearSources[j - 1]!, 'row ascending');
      }
    }
    assert.equal(l.farBlockStart.length, Math.ceil(3000 / block) + 1);
    assert.equal(l.farBlockStart[l.farBlockStart.length - 1], l.farSources.length);
    for (let b = 0; b + 1 < l.farBlockStart.length; b++) {
      for (let k = l.farBlockStart[b]!; k < l.farBlockStart[b + 1]!; k++) {
        assert.ok(Math.abs(l.farTargets[k]! - l.farSources[k]!) >= window);
        assert.equal(Math.floor(l.farTargets[k]! / block), b, `edge ${k} in block ${b}`);
        if (k > l.farBlockStart[b]!) assert.ok(l.farSources[k - 1]! <= l.farSources[k]!, `source order at ${k}`);
      }
    }
  });

  it('puts every edge in one part when the window is 1 or spans the graph', () => {
    const allFar = layoutEdges(csr, { nearWindowNodes: 1, blockNodes: 128 });
    assert.equal(allFar.nearSources.length, 0);
    assert.deepEqual(layoutEdgeList(allFar), csrEdges(csr));
    const allNear = layoutEdges(csr, { nearWindowNodes: csr.nodeCount, blockNodes: 128 });
    assert.equal(allNear.farSources.length, 0);
    assert.deepEqual(layoutEdgeList(allNear), csrEdges(csr));
  });

  it('handles the empty graph', () => {
    const l = layoutEdges(buildCsr(0, new Int32Array(0), new Int32Array(0), 0, false));
    assert.equal(l.nearOffsets.length, 1);
    assert.equal(l.farSources.length, 0);
  });
});
