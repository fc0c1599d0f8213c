-- Nothing to undo: the index of migration 8 with more words in it.
SELECT 1;
