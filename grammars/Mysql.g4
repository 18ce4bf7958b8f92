/* MySQL / MariaDB — what differs from Core.g4. Written for parrot. */
grammar Mysql;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'USE' identifier
    | ('DESCRIBE' | 'DESC' | 'EXPLAIN') tableName identifier?
    | 'SHOW' ~';'+
    | 'SET' ('GLOBAL' | 'SESSION')? setAssignment (',' setAssignment)*
    | 'CREATE' ('DATABASE' | 'SCHEMA') ifNotExists? identifier ~';'*
    | 'LOCK' 'TABLES' ~';'+
    | 'UNLOCK' 'TABLES'
    | 'CALL' qualifiedName ('(' (expr (',' expr)*)? ')')?
    | 'CREATE' orReplace? ('ALGORITHM' '=' identifier)? ('DEFINER' '=' ~('VIEW' | 'TRIGGER' | 'PROCEDURE' | 'FUNCTION')+)?
      ('TRIGGER' | 'PROCEDURE' | 'FUNCTION' | 'EVENT') ~';'+
    | ('ANALYZE' | 'CHECK' | 'REPAIR') 'TABLE' tableName (',' tableName)*
    | ('GRANT' | 'REVOKE' | 'FLUSH' | 'OPTIMIZE' | 'KILL') ~';'+
    ;
setAssignment
    : (VARIABLE | qualifiedName) ('=' | ':=') (expr | 'DEFAULT' | 'ON')
    | 'NAMES' (identifier | STRING) ('COLLATE' (identifier | STRING))?
    | 'TRANSACTION' ~';'+
    ;
selectModifierExt
    : 'DISTINCTROW' | 'HIGH_PRIORITY' | 'STRAIGHT_JOIN' | 'SQL_SMALL_RESULT' | 'SQL_BIG_RESULT'
    | 'SQL_BUFFER_RESULT' | 'SQL_NO_CACHE' | 'SQL_CACHE' | 'SQL_CALC_FOUND_ROWS'
    ;
intoClause : 'INTO' (VARIABLE (',' VARIABLE)* | 'OUTFILE' STRING ~';'* | 'DUMPFILE' STRING) ;
queryTail : 'FOR' 'UPDATE' ('NOWAIT' | 'SKIP' 'LOCKED')? | 'LOCK' 'IN' 'SHARE' 'MODE' | intoClause ;
limitClause
    : 'LIMIT' expr (('OFFSET' | ',') expr)?
    | offsetClause fetchClause?
    | fetchClause
    ;
joinPart
    : joinType? 'JOIN' tablePrimary joinConstraint
    | 'CROSS' 'JOIN' tablePrimary joinCondition?
    | 'NATURAL' (('LEFT' | 'RIGHT') 'OUTER'?)? 'JOIN' tablePrimary
    | 'STRAIGHT_JOIN' tablePrimary joinCondition?
    ;
joinType : 'INNER' | ('LEFT' | 'RIGHT') 'OUTER'? ;
joinConstraint : joinCondition? ;
tableHint : ('USE' | 'IGNORE' | 'FORCE') ('INDEX' | 'KEY') ('FOR' ('JOIN' | 'ORDER' 'BY' | 'GROUP' 'BY'))? '(' (identifier (',' identifier)*)? ')' ;
tableSuffix : 'PARTITION' '(' identifier (',' identifier)* ')' ;
insertVerb : ('INSERT' | 'REPLACE') ('LOW_PRIORITY' | 'DELAYED' | 'HIGH_PRIORITY')? 'IGNORE'? ;
insertSource : query | ('VALUES' | 'VALUE') valuesRow (',' valuesRow)* | 'SET' assignment (',' assignment)* | '(' ')' 'VALUES' valuesRow (',' valuesRow)* ;
onConflictClause : 'ON' 'DUPLICATE' 'KEY' 'UPDATE' assignment (',' assignment)* ;
updateStatement
    : 'UPDATE' 'LOW_PRIORITY'? 'IGNORE'? tableReference (',' tableReference)* 'SET' assignment (',' assignment)*
      whereClause? orderByClause? limitClause?
    ;
deleteStatement
    : 'DELETE' 'LOW_PRIORITY'? 'QUICK'? 'IGNORE'?
      ( qualifiedName ('.' '*')? (',' qualifiedName ('.' '*')?)* 'FROM' tableReference (',' tableReference)*
      | 'FROM' tableReference (',' tableReference)* ('USING' tableReference (',' tableReference)*)?
      ) whereClause? orderByClause? limitClause? returningClause?
    ;
tableOption
    : ('ENGINE' | 'AUTO_INCREMENT' | 'ROW_FORMAT' | 'COMMENT' | 'COLLATE') '='? (identifier | STRING | NUMBER)
    | 'DEFAULT'? ('CHARSET' | 'CHARACTER' 'SET') '='? (identifier | STRING)
    | ','
    ;
alterAction
    : 'ADD' 'COLUMN'? ifNotExists? (columnDefinition | '(' columnDefinition (',' columnDefinition)* ')') (('FIRST' | 'AFTER' identifier))?
    | 'ADD' tableConstraint
    | 'ADD' ('INDEX' | 'KEY' | 'FULLTEXT' | 'SPATIAL') ifNotExists? identifier? '(' indexColumn (',' indexColumn)* ')'
    | 'DROP' ('COLUMN' | 'INDEX' | 'KEY' | 'CONSTRAINT' | 'FOREIGN' 'KEY' | 'CHECK')? ifExists? identifier
    | 'DROP' 'PRIMARY' 'KEY'
    | 'MODIFY' 'COLUMN'? ifExists? columnDefinition (('FIRST' | 'AFTER' identifier))?
    | 'CHANGE' 'COLUMN'? ifExists? identifier columnDefinition (('FIRST' | 'AFTER' identifier))?
    | 'RENAME' ('COLUMN' | 'INDEX' | 'KEY') identifier 'TO' identifier
    | 'RENAME' ('TO' | 'AS')? identifier
    | 'ALTER' 'COLUMN'? identifier ('SET' 'DEFAULT' expr | 'DROP' 'DEFAULT' | 'SET' ('VISIBLE' | 'INVISIBLE'))
    | tableOption
    ;
columnConstraintExt
    : 'ON' 'UPDATE' expr
    | ('VISIBLE' | 'INVISIBLE')
    | ('AS' | 'GENERATED' 'ALWAYS' 'AS') '(' expr ')' ('STORED' | 'VIRTUAL' | 'PERSISTENT')?
    | ('CHARACTER' 'SET' | 'CHARSET') identifier
    | 'UNSIGNED' | 'SIGNED' | 'ZEROFILL'
    ;
typeSuffix : 'UNSIGNED' | 'SIGNED' | 'ZEROFILL' | ('CHARACTER' 'SET' | 'CHARSET') identifier | 'BINARY' ;
dataType : typeName ('(' typeParameter (',' typeParameter)* ')')? typeSuffix* ;
typeName : identifier+ | 'BINARY' | 'CHAR' ;

concatOperator : '||' ;
multiplicativeExt : 'DIV' | 'MOD' ;
comparisonExt : '<=>' ;
binaryExt : 'XOR' | '&&' | 'SOUNDS' 'LIKE' | ':=' | '->' | '->>' | 'MEMBER' 'OF' ;
likeExt : 'REGEXP' | 'RLIKE' ;
postfixExt : EXTENSION_POINT ;
primaryExt
    : VARIABLE
    | '?'
    | ('!' | 'BINARY') primary
    | 'MATCH' '(' expr (',' expr)* ')' 'AGAINST' '(' expr ('IN' 'NATURAL' 'LANGUAGE' 'MODE' | 'IN' 'BOOLEAN' 'MODE' | 'WITH' 'QUERY' 'EXPANSION')? ')'
    | 'ROW' '(' expr (',' expr)* ')'
    | 'DEFAULT'
    ;
specialFunction
    : ('SUBSTRING' | 'SUBSTR') '(' expr ('FROM' expr ('FOR' expr)? | ',' expr (',' expr)?) ')'
    | 'TRIM' '(' ('BOTH' | 'LEADING' | 'TRAILING')? (expr? 'FROM')? expr ')'
    | 'POSITION' '(' expr 'IN' expr ')'
    | 'CONVERT' '(' expr (',' dataType | 'USING' identifier) ')'
    | ('CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP' | 'LOCALTIME' | 'LOCALTIMESTAMP' | 'CURRENT_USER' | 'UTC_DATE' | 'UTC_TIME' | 'UTC_TIMESTAMP') ('(' NUMBER? ')')?
    | ('DATE_ADD' | 'DATE_SUB' | 'ADDDATE' | 'SUBDATE') '(' expr ',' ('INTERVAL' expr intervalUnit | expr) ')'
    | ('TIMESTAMPADD' | 'TIMESTAMPDIFF') '(' identifier ',' expr ',' expr ')'
    | 'GROUP_CONCAT' '(' 'DISTINCT'? expr (',' expr)* orderByClause? ('SEPARATOR' STRING)? ')'
    | 'CHAR' '(' expr (',' expr)* ('USING' identifier)? ')'
    | 'WEIGHT_STRING' '(' ~')'* ')'
    ;
castFunction : 'CAST' ;
extractExpression : 'EXTRACT' '(' intervalUnit 'FROM' expr ')' ;
literalExt : DQ_TEXT | HEX_STRING | BIT_STRING | CHARSET_STRING | 'N' STRING ;
literal
    : NUMBER | (STRING | DQ_TEXT)+ | 'NULL' | 'TRUE' | 'FALSE' | literalExt
    | ('DATE' | 'TIME' | 'TIMESTAMP') STRING
    | intervalLiteral
    ;
intervalLiteral : 'INTERVAL' expr intervalUnit ;
intervalUnit
    : unitName
    | 'SECOND_MICROSECOND' | 'MINUTE_MICROSECOND' | 'MINUTE_SECOND' | 'HOUR_MICROSECOND' | 'HOUR_SECOND'
    | 'HOUR_MINUTE' | 'DAY_MICROSECOND' | 'DAY_SECOND' | 'DAY_MINUTE' | 'DAY_HOUR' | 'YEAR_MONTH'
    ;
aliasName : identifier | STRING | DQ_TEXT ;
quotedIdentifier : BQ_TEXT ;
functionKeywordExt : 'MOD' | 'DATABASE' | 'SCHEMA' | 'CHARSET' | 'USER' | 'CHAR' | 'VALUES' | 'FORMAT' | 'MATCH' ;

nonReserved
    : nonReservedCore | 'USE' | 'DESCRIBE' | 'SHOW' | 'SESSION' | 'TABLES' | 'UNLOCK' | 'NAMES' | 'CALL'
    | 'FLUSH' | 'KILL' | 'DISTINCTROW' | 'OUTFILE' | 'DUMPFILE' | 'NOWAIT' | 'SKIP' | 'LOCKED' | 'SHARE'
    | 'MODE' | 'QUICK' | 'DUPLICATE' | 'ENGINE' | 'ROW_FORMAT' | 'CHARSET' | 'ZEROFILL' | 'SOUNDS'
    | 'AGAINST' | 'LANGUAGE' | 'BOOLEAN' | 'EXPANSION' | 'SUBSTRING' | 'SUBSTR' | 'TRIM' | 'POSITION'
    | 'DATE_ADD' | 'DATE_SUB' | 'ADDDATE' | 'SUBDATE' | 'TIMESTAMPADD' | 'TIMESTAMPDIFF' | 'GROUP_CONCAT'
    | 'WEIGHT_STRING' | 'N' | 'VALUE' | 'FORMAT' | 'UTC_DATE' | 'UTC_TIME' | 'UTC_TIMESTAMP' | 'SIGNED'
    | 'SECOND_MICROSECOND' | 'MINUTE_MICROSECOND' | 'MINUTE_SECOND' | 'HOUR_MICROSECOND' | 'HOUR_SECOND'
    | 'HOUR_MINUTE' | 'DAY_MICROSECOND' | 'DAY_SECOND' | 'DAY_MINUTE' | 'DAY_HOUR' | 'YEAR_MONTH'
    | 'MEMBER' | 'OPTIMIZE' | 'DELAYED' | 'PARTITION' | 'ROW' | 'TEMPORARY' | 'USER' | 'CAST'
    | 'UNSIGNED' | 'MODIFY' | 'CHANGE' | 'AFTER' | 'ISOLATION' | 'LEVEL' | 'DEFINER' | 'ALGORITHM'
    | 'VISIBLE' | 'INVISIBLE' | 'TRIGGER' | 'EACH'
    ;

fragment STRING_CHAR : ~['\\] | '\'\'' | '\\' . ;
DQ_TEXT : '"' (~["\\] | '""' | '\\' .)* '"' ;
BQ_TEXT : '`' (~'`' | '``')* '`' ;
HEX_STRING : 'X' '\'' HEX_DIGIT* '\'' ;
BIT_STRING : 'B' '\'' [01]* '\'' ;
CHARSET_STRING : '_' [A-Z0-9]+ '\'' (~['\\] | '\'\'' | '\\' .)* '\'' ;
VARIABLE : '@' '@'? ([A-Z0-9_.$]+ | BQ_TEXT | '\'' ~'\''* '\'') ;
HASH_COMMENT : '#' ~[\r\n]* -> channel(HIDDEN) ;
// '--' starts a comment only before whitespace, a control character or the end: 1--1 is 2
LINE_COMMENT
    : '--' ([\r\n] | [\u0000-\u0009\u000B\u000C\u000E-\u0020] ~[\r\n]* | EOF) -> channel(HIDDEN)
    ;
fragment IDENT_START : [A-Z_$] | [\u0080-\uFFFE] ;
fragment IDENT_PART : [A-Z_0-9$] | [\u0080-\uFFFE] ;
