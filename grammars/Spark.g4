/* Spark SQL / Hive — what differs from Core.g4. Written for parrot. */
grammar Spark;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'USE' qualifiedName
    | ('DESCRIBE' | 'DESC') ('TABLE' | 'EXTENDED' | 'FORMATTED' | 'FUNCTION' | 'DATABASE' | 'QUERY')*
      (query | qualifiedName ('PARTITION' balanced)? qualifiedName?)
    | 'SHOW' ~';'+
    | 'SET' ~';'*
    | 'RESET' ~';'*
    | ('CACHE' | 'UNCACHE') 'LAZY'? 'TABLE' ifExists? tableName ('OPTIONS' balanced)? ('AS'? query)?
    | ('REFRESH' | 'MSCK' | 'ADD' | 'LIST' | 'CLEAR') ~';'*
    | 'ANALYZE' 'TABLE' tableName ('PARTITION' balanced)? 'COMPUTE' 'STATISTICS'
      ('NOSCAN' | 'FOR' ('ALL' 'COLUMNS' | 'COLUMNS' identifier (',' identifier)*))?
    | 'CREATE' ('DATABASE' | 'SCHEMA' | 'NAMESPACE') ifNotExists? qualifiedName
      ('COMMENT' STRING | 'LOCATION' STRING | 'WITH' ('DBPROPERTIES' | 'PROPERTIES') balanced)*
    | 'DROP' ('DATABASE' | 'SCHEMA' | 'NAMESPACE') ifExists? qualifiedName ('RESTRICT' | 'CASCADE')?
    | 'DROP' 'TEMPORARY'? ('FUNCTION' | 'VIEW') ifExists? qualifiedName
    | 'ANALYZE' 'TABLES' (('FROM' | 'IN') qualifiedName)? 'COMPUTE' 'STATISTICS' 'NOSCAN'?
    | 'TRUNCATE' 'TABLE' tableName ('PARTITION' balanced)?
    | 'CREATE' orReplace? ('TEMPORARY' | 'TEMP')? 'FUNCTION' ~';'+
    | 'INSERT' 'OVERWRITE' 'LOCAL'? 'DIRECTORY' ~';'+
    | 'FROM' tableReference (',' tableReference)* ('SELECT' selectModifier* selectList whereClause? groupByClause? havingClause?)+
    | 'DECLARE' ('OR' 'REPLACE')? 'VARIABLE'? identifier (',' identifier)* dataType? (('DEFAULT' | '=') expr)?
    | 'ALTER' 'VIEW' tableName
      ('AS' query | ('SET' | 'UNSET') 'TBLPROPERTIES' ifExists? balanced | 'RENAME' 'TO' tableName)
    ;
setOperatorExt : 'MINUS' ;
insertStatement
    : 'INSERT' ('OVERWRITE' | 'INTO') 'TABLE'? tableName ('PARTITION' balanced)? ifNotExists?
      ('BY' 'NAME' | columnList)? (query | 'TABLE' tableName | 'REPLACE' whereClause query)
    ;
querySpecification
    : 'SELECT' selectModifier* selectList intoClause? fromClause? afterFrom* whereClause? afterWhere*
      groupByClause? havingClause? windowClause? afterHaving*
    | 'SELECT' 'TRANSFORM' '(' expr (',' expr)* ')' rowFormat? 'USING' STRING
      ('AS' ('(' identifier dataType? (',' identifier dataType?)* ')' | identifier (',' identifier)*))?
      rowFormat? fromClause? whereClause? groupByClause? havingClause?
    ;
rowFormat : 'ROW' 'FORMAT' ('SERDE' STRING ('WITH' 'SERDEPROPERTIES' balanced)? | 'DELIMITED' ~('USING' | 'FROM' | ';')*) ;
alterTable : 'ALTER' 'TABLE' tableName alterAction (',' alterAction)* ;
alterAction
    : 'ADD' ('COLUMN' | 'COLUMNS') ('(' columnDefinition (',' columnDefinition)* ')' | columnDefinition)
    | 'ADD' ifNotExists? ('PARTITION' balanced ('LOCATION' STRING)?)+
    | 'DROP' ('COLUMN' | 'COLUMNS') ifExists? (columnList | identifier (',' identifier)*)
    | 'DROP' ifExists? 'PARTITION' balanced (',' 'PARTITION' balanced)* 'PURGE'?
    | 'RENAME' 'COLUMN' identifier 'TO' identifier
    | 'RENAME' 'TO' tableName
    | 'CHANGE' 'COLUMN'? qualifiedName identifier dataType ('COMMENT' STRING)? ('FIRST' | 'AFTER' identifier)?
    | ('ALTER' | 'CHANGE') 'COLUMN'? qualifiedName ('TYPE' dataType | 'COMMENT' STRING | ('SET' | 'DROP') 'NOT' 'NULL' | 'SET' 'DEFAULT' expr | 'DROP' 'DEFAULT' | ('FIRST' | 'AFTER' identifier))+
    | ('SET' | 'UNSET') ('TBLPROPERTIES' | 'SERDEPROPERTIES') ifExists? balanced
    | 'SET' 'LOCATION' STRING
    | ('CLUSTER' 'BY' (balanced | 'NONE'))
    ;
typeParameter : signedNumber ;
selectModifierExt : HINT ;
queryTail
    : ('CLUSTER' | 'DISTRIBUTE' | 'SORT') 'BY' orderItem (',' orderItem)*
    ;
limitClause : 'LIMIT' (expr | 'ALL') ('OFFSET' expr)? | 'OFFSET' expr ;
joinPart
    : joinType? 'JOIN' tablePrimary joinConstraint
    | 'CROSS' 'JOIN' tablePrimary
    | 'NATURAL' joinType? 'JOIN' tablePrimary
    | 'LATERAL' 'VIEW' 'OUTER'? functionCall identifier? ('AS' identifier (',' identifier)*)?
    ;
joinType : 'INNER' | ('LEFT' | 'RIGHT' | 'FULL') 'OUTER'? | 'LEFT'? ('SEMI' | 'ANTI') ;
joinConstraint : joinCondition? ;
tableSuffix
    : 'TABLESAMPLE' '(' ~')'* ')'
    | ('VERSION' | 'TIMESTAMP') 'AS' 'OF' expr
    ;
tableHint : 'LATERAL' 'VIEW' 'OUTER'? functionCall identifier? ('AS' identifier (',' identifier)*)? | pivotClause ;
pivotClause
    : 'PIVOT' '(' expr alias? (',' expr alias?)* 'FOR' (identifier | columnList) 'IN' '(' expr alias? (',' expr alias?)* ')' ')' tableAlias?
    | 'UNPIVOT' (('INCLUDE' | 'EXCLUDE') 'NULLS')? '(' ~')'* ')' ')' tableAlias?
    ;
relation : tableName tableSuffix* (tableAlias columnList?)? tableHint* ;
tablePrimaryExt : STRING '.' BQ_TEXT | valuesClause (tableAlias columnList?)? ;
selectItem
    : '*' starModifier*
    | qualifiedName '.' '*' starModifier*
    | expr 'AS' columnList
    | expr alias?
    ;
afterHaving : 'QUALIFY' expr ;
groupByTail : 'WITH' ('ROLLUP' | 'CUBE') | 'GROUPING' 'SETS' '(' groupingElement (',' groupingElement)* ')' ;
createTable
    : 'CREATE' orReplace? ('TEMPORARY' | 'EXTERNAL')? 'TABLE' ifNotExists? tableName
      ('(' tableElement (',' tableElement)* ')')? tableOption* ('AS'? query)?
    | 'CREATE' 'TABLE' ifNotExists? tableName 'LIKE' tableName tableOption*
    ;
columnDefinition : identifier ':'? dataType columnConstraint* ;
tableOption
    : 'USING' identifier
    | ('PARTITIONED' | 'CLUSTERED' | 'SORTED') 'BY' '(' ~')'* ')' ('INTO' NUMBER 'BUCKETS')?
    | 'STORED' 'AS' identifier
    | 'ROW' 'FORMAT' ~(';' | 'STORED' | 'LOCATION' | 'TBLPROPERTIES' | 'AS')+
    | 'LOCATION' STRING
    | ('TBLPROPERTIES' | 'OPTIONS') '(' ~')'* ')'
    | 'COMMENT' STRING
    ;
createView
    : 'CREATE' orReplace? ('GLOBAL'? ('TEMPORARY' | 'TEMP'))? 'VIEW' ifNotExists? tableName
      ('(' identifier ('COMMENT' STRING)? (',' identifier ('COMMENT' STRING)?)* ')')? tableOption* 'AS' query
    ;

comparisonExt : '==' | '<=>' ;
multiplicativeExt : 'DIV' ;
binaryExt : '->' | '&&' | 'IS' 'NOT'? 'DISTINCT' 'FROM' ;
likeExt : 'RLIKE' | 'REGEXP' | 'ILIKE' ;
postfixExt : '[' expr ']' | '::' dataType | '.' identifier ;
primaryExt
    : '?'
    | ':' IDENTIFIER
    | '!' primary
    | 'STRUCT' '(' (expr alias? (',' expr alias?)*)? ')'
    ;
specialFunction
    : ('SUBSTRING' | 'SUBSTR') '(' expr ('FROM' expr ('FOR' expr)? | ',' expr (',' expr)?) ')'
    | 'TRIM' '(' ('BOTH' | 'LEADING' | 'TRAILING')? (expr? 'FROM')? expr ')'
    | 'POSITION' '(' expr 'IN' expr ')'
    | ('CURRENT_DATE' | 'CURRENT_TIMESTAMP' | 'CURRENT_USER') ('(' ')')?
    | 'OVERLAY' '(' expr 'PLACING' expr 'FROM' expr ('FOR' expr)? ')'
    | ('TIMESTAMPADD' | 'TIMESTAMPDIFF' | 'DATEADD' | 'DATEDIFF' | 'DATE_ADD' | 'DATE_DIFF') '(' unitName ',' expr ',' expr ')'
    ;
castFunction : 'CAST' | 'TRY_CAST' ;
extractExpression : 'EXTRACT' '(' extractField 'FROM' expr ')' ;
literal
    : NUMBER | (STRING | DQ_TEXT | RAW_STRING)+ | 'NULL' | 'TRUE' | 'FALSE' | BINARY_STRING
    | ('DATE' | 'TIMESTAMP' | 'TIMESTAMP_NTZ' | 'TIMESTAMP_LTZ') (STRING | DQ_TEXT)
    | intervalLiteral
    ;
intervalLiteral : 'INTERVAL' ((STRING | expr) intervalUnit? )+ ;
dataType
    : genericOpen '>'
    | genericOpen2 '>>'  // the lexer reads the closing '>>' of ARRAY<STRUCT<…>> as one token
    | typeName ('(' typeParameter (',' typeParameter)* ')')? ('COLLATE' identifier)?
    ;
typeName : identifier ;
genericOpen : ('ARRAY' | 'MAP' | 'STRUCT') '<' (complexField (',' complexField)*)? ;
genericOpen2 : ('ARRAY' | 'MAP' | 'STRUCT') '<' (complexField ',')* (identifier ':'?)? genericOpen ;
complexField : identifier ':'? dataType ('COMMENT' STRING)? | dataType ;
quotedIdentifier : BQ_TEXT ;
aliasName : identifier | STRING ;
functionKeywordExt : 'IF' | 'ARRAY' | 'MAP' | 'STRUCT' | 'DATE' | 'TIMESTAMP' | 'REPLACE' ;
functionArg : expr ;

// Spark's default (spark.sql.ansi.enforceReservedKeywords=false): every keyword but the strict
// ones (JOIN, ON, UNION, LEFT, …) is also an identifier, so `SELECT * FROM t WHERE` parses.
nonReserved
    : nonReservedCore | 'DBPROPERTIES' | 'PROPERTIES' | 'TABLES' | 'COMPUTE' | 'STATISTICS' | 'NOSCAN' | 'SERDE' | 'SERDEPROPERTIES' | 'DELIMITED' | 'COLUMNS' | 'CHANGE' | 'UNSET' | 'PURGE' | 'NONE' | 'AFTER' | 'TRANSFORM' | 'NAME' | 'ABORT' | 'ACTION' | 'ADD' | 'ALL' | 'ALTER' | 'ALWAYS' | 'ANALYZE' | 'AND'
    | 'ANY' | 'ARRAY' | 'AS' | 'ASC' | 'AUTOINCREMENT' | 'AUTO_INCREMENT' | 'BEGIN' | 'BETWEEN'
    | 'BOTH' | 'BUCKETS' | 'BY' | 'CACHE' | 'CASCADE' | 'CASE' | 'CAST' | 'CHECK' | 'CLEAR'
    | 'CLUSTER' | 'CLUSTERED' | 'COLLATE' | 'COLUMN' | 'COMMENT' | 'COMMIT' | 'CONSTRAINT'
    | 'CREATE' | 'CUBE' | 'CURRENT' | 'CURRENT_DATE' | 'CURRENT_TIMESTAMP' | 'CURRENT_USER' | 'DATA'
    | 'DATABASE' | 'DATE' | 'DATEADD' | 'DATEDIFF' | 'DATE_ADD' | 'DATE_DIFF' | 'DAY' | 'DAYS'
    | 'DECLARE' | 'DEFAULT' | 'DEFERRABLE' | 'DEFERRED' | 'DELETE' | 'DESC' | 'DESCRIBE'
    | 'DIRECTORY' | 'DISTINCT' | 'DISTRIBUTE' | 'DIV' | 'DO' | 'DROP' | 'ELSE' | 'END' | 'ESCAPE'
    | 'EXCLUDE' | 'EXISTS' | 'EXPLAIN' | 'EXTENDED' | 'EXTERNAL' | 'EXTRACT' | 'FAIL' | 'FALSE'
    | 'FETCH' | 'FILTER' | 'FIRST' | 'FOLLOWING' | 'FOR' | 'FOREIGN' | 'FORMAT' | 'FORMATTED'
    | 'FROM' | 'FUNCTION' | 'GENERATED' | 'GLOBAL' | 'GROUP' | 'GROUPING' | 'GROUPS' | 'HAVING'
    | 'HOUR' | 'HOURS' | 'IDENTITY' | 'IF' | 'IGNORE' | 'ILIKE' | 'IMMEDIATE' | 'IN' | 'INCLUDE'
    | 'INDEX' | 'INITIALLY' | 'INSERT' | 'INTERVAL' | 'INTO' | 'IS' | 'KEY' | 'LAST' | 'LAZY'
    | 'LEADING' | 'LIKE' | 'LIMIT' | 'LIST' | 'LOCAL' | 'LOCATION' | 'MAP' | 'MATCH' | 'MATCHED'
    | 'MATERIALIZED' | 'MERGE' | 'MICROSECOND' | 'MICROSECONDS' | 'MILLISECOND' | 'MILLISECONDS'
    | 'MINUTE' | 'MINUTES' | 'MONTH' | 'MONTHS' | 'MSCK' | 'NAMESPACE' | 'NEXT' | 'NO' | 'NOT'
    | 'NOTHING' | 'NULL' | 'NULLS' | 'OF' | 'OFFSET' | 'ONLY' | 'OPTIONS' | 'OR' | 'ORDER'
    | 'OTHERS' | 'OUTER' | 'OVER' | 'OVERLAY' | 'OVERWRITE' | 'PARTITION' | 'PARTITIONED' | 'PIVOT'
    | 'PLACING' | 'PLAN' | 'POSITION' | 'PRECEDING' | 'PRIMARY' | 'QUALIFY' | 'QUARTER' | 'QUERY'
    | 'RANGE' | 'RECURSIVE' | 'REFERENCES' | 'REFRESH' | 'REGEXP' | 'RENAME' | 'REPLACE' | 'RESET'
    | 'RESPECT' | 'RESTRICT' | 'RETURNING' | 'RLIKE' | 'ROLLBACK' | 'ROLLUP' | 'ROW' | 'ROWS'
    | 'SCHEMA' | 'SECOND' | 'SECONDS' | 'SELECT' | 'SEQUENCE' | 'SET' | 'SETS' | 'SHOW' | 'SOME'
    | 'SORT' | 'SORTED' | 'SOURCE' | 'START' | 'STORED' | 'STRUCT' | 'SUBSTR' | 'SUBSTRING'
    | 'TABLE' | 'TABLESAMPLE' | 'TARGET' | 'TBLPROPERTIES' | 'TEMP' | 'TEMPORARY' | 'THEN' | 'TIES'
    | 'TIME' | 'TIMESTAMP' | 'TIMESTAMPADD' | 'TIMESTAMPDIFF' | 'TIMESTAMP_LTZ' | 'TIMESTAMP_NTZ'
    | 'TO' | 'TRAILING' | 'TRANSACTION' | 'TRIM' | 'TRUE' | 'TRUNCATE' | 'TRY_CAST' | 'TYPE'
    | 'UNBOUNDED' | 'UNCACHE' | 'UNIQUE' | 'UNKNOWN' | 'UNPIVOT' | 'UPDATE' | 'USE' | 'VALUES'
    | 'VARIABLE' | 'VERBOSE' | 'VERSION' | 'VIEW' | 'VIRTUAL' | 'WEEK' | 'WEEKS' | 'WHEN' | 'WHERE'
    | 'WINDOW' | 'WITH' | 'WITHIN' | 'WORK' | 'YEAR' | 'YEARS'
    ;

fragment STRING_CHAR : ~['\\] | '\\' . ;
DQ_TEXT : '"' (~["\\] | '\\' .)* '"' ;
BQ_TEXT : '`' (~'`' | '``')* '`' ;
BINARY_STRING : 'X' '\'' HEX_DIGIT* '\'' ;
RAW_STRING : 'R' ('\'' ~'\''* '\'' | '"' ~'"'* '"') ;
HINT : '/*+' .*? '*/' ;
fragment IDENT_START : [A-Z_0-9] | [\u0080-\uFFFE] ;
