DROP TABLE served;
