/* BigQuery (GoogleSQL) — what differs from Core.g4. Written for parrot. */
grammar Bigquery;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'DECLARE' identifier (',' identifier)* dataType? ('DEFAULT' expr)?
    | 'SET' (identifier | '(' identifier (',' identifier)* ')') '=' expr
    | ('BEGIN' | 'IF' | 'LOOP' | 'WHILE' | 'CALL' | 'EXECUTE' | 'ASSERT' | 'EXPORT' | 'LOAD' | 'GRANT' | 'REVOKE' | 'RETURN') ~';'*
    | 'CREATE' orReplace? ('TEMP' | 'TEMPORARY')? ('FUNCTION' | 'PROCEDURE' | 'SCHEMA' | 'TABLE' 'FUNCTION' | 'MODEL') ~';'*
    ;
setOperator : ('UNION' | 'EXCEPT' | 'INTERSECT') ('ALL' | 'DISTINCT') ;
querySpecification
    : 'SELECT' selectModifier* ('AS' ('STRUCT' | 'VALUE'))? selectList fromClause? whereClause?
      groupByClause? havingClause? windowClause? afterHaving*
    ;
selectList : selectItem (',' selectItem)* ','? ;
afterHaving : 'QUALIFY' expr ;
limitClause : 'LIMIT' expr ('OFFSET' expr)? ;
starModifier
    : 'EXCEPT' '(' identifier (',' identifier)* ')'
    | 'REPLACE' '(' expr 'AS'? identifier (',' expr 'AS'? identifier)* ')'
    ;
groupByTail : EXTENSION_POINT ;
joinType : 'INNER' | ('LEFT' | 'RIGHT' | 'FULL') 'OUTER'? ;
tableSuffix
    : 'FOR' 'SYSTEM_TIME' 'AS' 'OF' expr
    | 'TABLESAMPLE' 'SYSTEM' '(' expr 'PERCENT' ')'
    ;
tableHint : pivotClause | 'WITH' 'OFFSET' ('AS'? identifier)? ;
pivotClause
    : 'PIVOT' '(' expr alias? (',' expr alias?)* 'FOR' identifier 'IN' '(' expr alias? (',' expr alias?)* ')' ')' tableAlias?
    | 'UNPIVOT' (('INCLUDE' | 'EXCLUDE') 'NULLS')? '(' ~')'* ')' ')' tableAlias?
    ;
tablePrimaryExt : 'UNNEST' '(' expr ')' (tableAlias)? ('WITH' 'OFFSET' ('AS'? identifier)?)? ;
relation : tableName tableSuffix* (tableAlias columnList?)? tableHint* ;
tableName : tablePathPart ('.' tablePathPart)* ;
tablePathPart : identifier ('-' (identifier | NUMBER))* ;  // unquoted project ids: my-project.ds.t
tableFunction : functionName '(' (functionArg (',' functionArg)*)? ')' ;
insertVerb : 'INSERT' ;
createTable
    : 'CREATE' orReplace? temporary? ('TABLE' | 'SNAPSHOT' 'TABLE') ifNotExists? tableName
      ( '(' tableElement (',' tableElement)* ')' tableOption* ('AS' query)?
      | tableOption* 'AS' query
      | ('LIKE' | 'COPY' | 'CLONE') tableName tableOption*
      )
    ;
tableOption : ('PARTITION' | 'CLUSTER') 'BY' expr (',' expr)* | 'OPTIONS' '(' ~')'* ')' | 'DEFAULT' 'COLLATE' STRING ;
columnConstraintExt : 'OPTIONS' '(' ~')'* ')' ;

multiplicativeExt : EXTENSION_POINT ;
binaryExt : 'IS' 'NOT'? 'DISTINCT' 'FROM' ;
inTargetExt : 'UNNEST' '(' expr ')' ;
postfixExt : '[' (('OFFSET' | 'ORDINAL' | 'SAFE_OFFSET' | 'SAFE_ORDINAL') '(' expr ')' | expr) ']' | '.' identifier ;
primaryExt
    : 'ARRAY' ('<' dataType '>' | '<' genericOpen '>>')? '[' (expr (',' expr)*)? ']'
    | 'ARRAY' '(' query ')'
    | '[' (expr (',' expr)*)? ']'
    | 'STRUCT' ('<' structField (',' structField)* '>')? '(' (expr alias? (',' expr alias?)*)? ')'
    | '@' '@'? identifier
    | '?'
    ;
structField : identifier? dataType ;
specialFunction
    : ('CURRENT_DATE' | 'CURRENT_TIMESTAMP' | 'CURRENT_TIME' | 'CURRENT_DATETIME') ('(' expr? ')')?
    | 'SAFE' '.' functionCall
    | ('DATE_ADD' | 'DATE_SUB' | 'DATETIME_ADD' | 'DATETIME_SUB' | 'TIMESTAMP_ADD' | 'TIMESTAMP_SUB' | 'TIME_ADD' | 'TIME_SUB') '(' expr ',' 'INTERVAL' expr intervalUnit ')'
    | ('DATE_DIFF' | 'DATETIME_DIFF' | 'TIMESTAMP_DIFF' | 'TIME_DIFF' | 'DATE_TRUNC' | 'DATETIME_TRUNC' | 'TIMESTAMP_TRUNC' | 'TIME_TRUNC' | 'LAST_DAY') '(' expr (',' expr)? (',' (intervalUnit | expr))? ')'
    ;
castFunction : 'CAST' | 'SAFE_CAST' ;
castExpression : castFunction '(' expr 'AS' dataType ('FORMAT' expr)? ')' ;
extractExpression : 'EXTRACT' '(' extractField ('(' identifier ')')? 'FROM' expr ('AT' 'TIME' 'ZONE' expr)? ')' ;
literal
    : NUMBER | STRING | DQ_TEXT | TRIPLE_STRING | RAW_STRING | BYTES_STRING | 'NULL' | 'TRUE' | 'FALSE'
    | ('DATE' | 'TIME' | 'DATETIME' | 'TIMESTAMP' | 'NUMERIC' | 'BIGNUMERIC' | 'JSON' | 'RANGE') (STRING | DQ_TEXT)
    | 'INTERVAL' expr intervalUnit ('TO' intervalUnit)?
    ;
intervalUnit : unitName | 'DAYOFWEEK' | 'DAYOFYEAR' | 'ISOWEEK' | 'ISOYEAR' | 'DATE' | 'TIME' | 'DATETIME' | 'WEEK' '(' identifier ')' ;
extractField : intervalUnit | identifier ;
dataType
    : genericOpen '>'
    | genericOpen2 '>>'  // the lexer reads the closing '>>' of ARRAY<STRUCT<…>> as one token
    | typeName ('(' typeParameter (',' typeParameter)* ')')?
    ;
genericOpen : 'ARRAY' '<' dataType | 'STRUCT' '<' structField (',' structField)* ;
genericOpen2 : 'ARRAY' '<' genericOpen | 'STRUCT' '<' (structField ',')* identifier? genericOpen ;
quotedIdentifier : BQ_TEXT ;
aliasName : identifier ;
functionKeywordExt : 'IF' | 'LEFT' | 'RIGHT' | 'REPLACE' | 'DATE' | 'TIME' | 'DATETIME' | 'TIMESTAMP' | 'STRUCT' | 'ARRAY' | 'JSON' | 'RANGE' | 'COLLATE' | 'GROUPING' ;
functionArg : (identifier '=>')? expr ;
functionArguments
    : '*'
    | ('DISTINCT' | 'ALL')? functionArg (',' functionArg)* (('IGNORE' | 'RESPECT') 'NULLS')? ('HAVING' ('MAX' | 'MIN') expr)? orderByClause? ('LIMIT' expr)?
    ;

nonReserved
    : nonReservedCore | 'DECLARE' | 'LOOP' | 'WHILE' | 'CALL' | 'EXECUTE' | 'ASSERT' | 'EXPORT' | 'LOAD'
    | 'GRANT' | 'REVOKE' | 'RETURN' | 'FUNCTION' | 'PROCEDURE' | 'MODEL' | 'STRUCT' | 'VALUE' | 'SNAPSHOT'
    | 'COPY' | 'CLONE' | 'CLUSTER' | 'OPTIONS' | 'SYSTEM_TIME' | 'OF' | 'SYSTEM' | 'PERCENT' | 'PIVOT'
    | 'UNPIVOT' | 'INCLUDE' | 'OFFSET' | 'ORDINAL' | 'SAFE_OFFSET' | 'SAFE_ORDINAL' | 'SAFE' | 'CURRENT_DATETIME'
    | 'DATE_ADD' | 'DATE_SUB' | 'DATETIME_ADD' | 'DATETIME_SUB' | 'TIMESTAMP_ADD' | 'TIMESTAMP_SUB' | 'TIME_ADD'
    | 'TIME_SUB' | 'DATE_DIFF' | 'DATETIME_DIFF' | 'TIMESTAMP_DIFF' | 'TIME_DIFF' | 'DATE_TRUNC'
    | 'DATETIME_TRUNC' | 'TIMESTAMP_TRUNC' | 'TIME_TRUNC' | 'LAST_DAY' | 'SAFE_CAST' | 'FORMAT' | 'DATETIME'
    | 'NUMERIC' | 'BIGNUMERIC' | 'JSON' | 'DAYOFWEEK' | 'DAYOFYEAR' | 'ISOWEEK' | 'ISOYEAR' | 'MAX' | 'MIN'
    | 'KEY' | 'TABLE' | 'VIEW' | 'SCHEMA' | 'REPLACE' | 'ZONE' | 'AT' | 'OUTER'
    ;

fragment STRING_CHAR : ~['\\\r\n] | '\\' . ;
DQ_TEXT : '"' (~["\\\r\n] | '\\' .)* '"' ;
TRIPLE_STRING : ('\'\'\'' .*? '\'\'\'' | '"""' .*? '"""') ;
RAW_STRING : 'R' ('\'' ~'\''* '\'' | '"' ~'"'* '"') ;
BYTES_STRING : ('B' | 'RB' | 'BR') ('\'' ~'\''* '\'' | '"' ~'"'* '"') ;
BQ_TEXT : '`' (~[`\\] | '\\' .)* '`' ;
HASH_COMMENT : '#' ~[\r\n]* -> channel(HIDDEN) ;
fragment IDENT_PART : [A-Z_0-9] | [\u0080-\uFFFE] ;
