-- 0002_result_kind: results hold two kinds. 'association' is the association object
-- at one granularity (every row of 0001); 'sweep' is a granularity sweep (METHOD.md
-- §6) of a (group, y, x), whose granularity_s is the sweep's base Δ.
ALTER TABLE results ADD COLUMN kind text NOT NULL DEFAULT 'association'
    CHECK (kind IN ('association', 'sweep'));
ALTER TABLE results DROP CONSTRAINT results_pkey;
ALTER TABLE results ADD PRIMARY KEY (kind, group_id, y, x, granularity_s, space, scope);
