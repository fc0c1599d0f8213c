-- Placeholder: this number belongs to another branch, merged in parallel.
SELECT 1;
