-- A placeholder: this number belongs to another branch's migration, merged
-- apart; it keeps the numbers contiguous on this branch and is dropped at merge.
SELECT 1;
