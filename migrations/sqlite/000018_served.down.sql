DROP INDEX served_last;
DROP INDEX served_first;
DROP TABLE served;
