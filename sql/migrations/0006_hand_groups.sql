-- 0006_hand_groups: hand-made groups (METHOD.md §4), one per [group NAME] of the
-- configuration. A hand group is a row of app_groups (key 'hand:NAME', its id a hash
-- of that key) whose rule holds the rule's text (NULL for a default group); its jobs
-- are rows of group_members, written by analyze. A job keeps its default group
-- (jobs.group_id) and may belong to any number of hand groups.
ALTER TABLE app_groups ADD COLUMN rule text;

CREATE TABLE group_members (
    group_id text NOT NULL REFERENCES app_groups (group_id) ON DELETE CASCADE,
    job_key  text NOT NULL REFERENCES jobs (job_key) ON DELETE CASCADE,
    PRIMARY KEY (group_id, job_key)
);
CREATE INDEX group_members_job_idx ON group_members (job_key);
