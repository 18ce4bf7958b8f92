/* Trino / Presto — what differs from Core.g4. Written for parrot. */
grammar Trino;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'USE' qualifiedName
    | ('DESCRIBE' | 'DESC') ('INPUT' | 'OUTPUT')? qualifiedName
    | 'SHOW' ~';'+
    | ('SET' | 'RESET') 'SESSION' ~';'+
    | ('GRANT' | 'REVOKE' | 'CALL' | 'PREPARE' | 'EXECUTE' | 'DEALLOCATE' | 'ANALYZE' | 'COMMENT') ~';'+
    | 'CREATE' ('SCHEMA' | 'ROLE' | orReplace? 'FUNCTION') ~';'+
    | 'ALTER' ('VIEW' | 'MATERIALIZED' 'VIEW' | 'SCHEMA') ifExists? qualifiedName ('RENAME' 'TO' qualifiedName | setAuthorization)
    | 'REFRESH' 'MATERIALIZED' 'VIEW' qualifiedName
    ;
property : (identifier | STRING) '=' (expr | 'DEFAULT') ;
setAuthorization : 'SET' 'AUTHORIZATION' ('ROLE' | 'USER')? identifier ;
alterAction
    : 'ADD' 'COLUMN'? ifNotExists? columnDefinition
    | 'DROP' 'COLUMN'? ifExists? qualifiedName
    | 'RENAME' 'COLUMN'? ifExists? qualifiedName 'TO' identifier
    | 'RENAME' 'TO' qualifiedName
    | 'ALTER' 'COLUMN'? qualifiedName ('SET' 'DATA' 'TYPE' dataType | 'DROP' 'NOT' 'NULL')
    | setAuthorization
    | 'SET' 'PROPERTIES' property (',' property)*
    | 'EXECUTE' identifier ('(' (functionArg (',' functionArg)*)? ')')? whereClause?
    ;
transactionStatement
    : 'START' 'TRANSACTION' (transactionMode (',' transactionMode)*)?
    | ('COMMIT' | 'ROLLBACK') 'WORK'?
    ;
transactionMode
    : 'ISOLATION' 'LEVEL' ('SERIALIZABLE' | 'REPEATABLE' 'READ' | 'READ' ('COMMITTED' | 'UNCOMMITTED'))
    | 'READ' ('ONLY' | 'WRITE')
    ;

// ---------------------------------------------------------------- SQL routines: WITH FUNCTION …
// (the statement splitter keeps the ';' inside BEGIN … END, END IF, END LOOP, … in the statement)
query : inlineFunctions? withClause? queryExpression ;
inlineFunctions : 'WITH' 'FUNCTION' routine (',' 'FUNCTION' routine)* ;
routine
    : qualifiedName '(' (identifier dataType (',' identifier dataType)*)? ')' 'RETURNS' returnType
      routineCharacteristic* ('RETURN' expr | routineBlock)
    ;
// one-word type names only: `RETURNS INT BEGIN …` must not read BEGIN as part of the type
returnType
    : ('ARRAY' | 'MAP') '(' dataType (',' dataType)? ')'
    | 'ROW' '(' identifier? dataType (',' identifier? dataType)* ')'
    | 'DOUBLE' 'PRECISION'
    | identifier ('(' typeParameter (',' typeParameter)* ')')? (('WITH' | 'WITHOUT') 'TIME' 'ZONE')?
    ;
routineCharacteristic
    : 'LANGUAGE' identifier
    | 'NOT'? 'DETERMINISTIC'
    | ('CALLED' | 'RETURNS' 'NULL') 'ON' 'NULL' 'INPUT'
    | 'SECURITY' ('DEFINER' | 'INVOKER')
    | 'COMMENT' STRING
    | 'WITH' '(' identifier '=' expr (',' identifier '=' expr)* ')'
    ;
routineBlock
    : 'BEGIN' ('DECLARE' identifier (',' identifier)* dataType ('DEFAULT' expr)? ';')* routineStatement* 'END'
    ;
routineStatement
    : routineBlock ';'
    | 'SET' identifier '=' expr ';'
    | 'RETURN' expr ';'
    | 'IF' expr 'THEN' routineStatement+ ('ELSEIF' expr 'THEN' routineStatement+)* ('ELSE' routineStatement+)? 'END' 'IF' ';'
    | 'CASE' expr? ('WHEN' expr 'THEN' routineStatement+)+ ('ELSE' routineStatement+)? 'END' 'CASE' ';'
    | ((identifier | 'SET') ':')?
      ( 'LOOP' routineStatement+ 'END' 'LOOP'
      | 'WHILE' expr 'DO' routineStatement+ 'END' 'WHILE'
      | 'REPEAT' routineStatement+ 'UNTIL' expr 'END' 'REPEAT'
      ) ';'
    | ('ITERATE' | 'LEAVE') (identifier | 'SET') ';'
    ;
explainStatement : 'EXPLAIN' 'ANALYZE'? 'VERBOSE'? ('(' ~')'* ')')? statement ;
limitClause
    : 'LIMIT' (expr | 'ALL')
    | offsetClause ('LIMIT' (expr | 'ALL') | fetchClause)?
    | fetchClause
    ;
offsetClause : 'OFFSET' expr ('ROW' | 'ROWS')? ;
groupByTail : EXTENSION_POINT ;
tableSuffix : 'TABLESAMPLE' ('BERNOULLI' | 'SYSTEM') '(' expr ')' | 'FOR' ('TIMESTAMP' | 'VERSION') 'AS' 'OF' expr ;
tablePrimaryExt
    : 'UNNEST' '(' expr (',' expr)* ')' ('WITH' 'ORDINALITY')? (tableAlias columnList?)?
    | 'TABLE' '(' functionCall ')' (tableAlias columnList?)?
    ;
tableFunction : 'LATERAL'? functionName '(' (functionArg (',' functionArg)*)? ')' ;
createTable
    : 'CREATE' orReplace? 'TABLE' ifNotExists? tableName
      ( '(' tableElement (',' tableElement)* ')' tableOption* ('AS' query ('WITH' 'NO'? 'DATA')?)?
      | columnList? tableOption* 'AS' '('? query ')'? ('WITH' 'NO'? 'DATA')?
      )
    ;
tableOption : 'COMMENT' STRING | 'WITH' '(' identifier '=' expr (',' identifier '=' expr)* ')' ;

binaryExt : '->' | 'IS' 'NOT'? 'DISTINCT' 'FROM' ;
postfixExt : '[' expr ']' | 'AT' 'TIME' 'ZONE' expr | '.' identifier ;
primaryExt
    : 'ARRAY' '[' (expr (',' expr)*)? ']'
    | 'ROW' '(' expr (',' expr)* ')'
    | '?'
    | 'TRY' '(' expr ')'
    ;
specialFunction
    : 'SUBSTRING' '(' expr ('FROM' expr ('FOR' expr)? | ',' expr (',' expr)?) ')'
    | 'TRIM' '(' ('BOTH' | 'LEADING' | 'TRAILING')? (expr? 'FROM')? expr ')'
    | 'POSITION' '(' expr 'IN' expr ')'
    | ('CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP' | 'LOCALTIME' | 'LOCALTIMESTAMP' | 'CURRENT_USER' | 'CURRENT_CATALOG' | 'CURRENT_SCHEMA') ('(' NUMBER ')')?
    | 'NORMALIZE' '(' expr (',' identifier)? ')'
    | 'JSON_EXISTS' '(' ~')'* ')'
    | 'LISTAGG' '(' ('DISTINCT' | 'ALL')? expr (',' expr)?
      ('ON' 'OVERFLOW' ('ERROR' | 'TRUNCATE' STRING? ('WITH' | 'WITHOUT') 'COUNT'))? ')' withinGroup? filterClause?
    ;
castFunction : 'CAST' | 'TRY_CAST' ;
literal
    : NUMBER | STRING | 'NULL' | 'TRUE' | 'FALSE' | UNICODE_STRING | BINARY_STRING
    | ('DATE' | 'TIME' | 'TIMESTAMP' | 'DECIMAL' | 'REAL' | 'DOUBLE' | 'JSON' | 'CHAR' | 'VARCHAR' | 'INTEGER' | 'BIGINT') STRING
    | 'INTERVAL' ('+' | '-')? STRING intervalUnit ('TO' intervalUnit)?
    ;
dataType
    : ('ARRAY' | 'MAP') '(' dataType (',' dataType)? ')'
    | 'ROW' '(' identifier? dataType (',' identifier? dataType)* ')'
    | typeName ('(' typeParameter (',' typeParameter)* ')')? (('WITH' | 'WITHOUT') 'TIME' 'ZONE')?
    ;
typeName : identifier+ | 'DECIMAL' | 'REAL' | 'DOUBLE' 'PRECISION'? | 'JSON' | 'CHAR' | 'VARCHAR' | 'INTEGER' | 'BIGINT' ;
functionKeywordExt : 'IF' | 'LEFT' | 'RIGHT' | 'REPLACE' | 'MAP' | 'TRY' | 'DATE' | 'JSON' | 'CHAR' | 'VARCHAR' ;
functionArg : expr ;

nonReserved
    : nonReservedCore | 'USE' | 'DESCRIBE' | 'INPUT' | 'OUTPUT' | 'SHOW' | 'RESET' | 'SESSION' | 'GRANT'
    | 'REVOKE' | 'CALL' | 'PREPARE' | 'EXECUTE' | 'DEALLOCATE' | 'ROLE' | 'FUNCTION' | 'BERNOULLI' | 'SYSTEM'
    | 'VERSION' | 'OF' | 'ORDINALITY' | 'DATA' | 'MAP' | 'ROW' | 'TRY' | 'SUBSTRING' | 'TRIM'
    | 'POSITION' | 'LOCALTIME' | 'LOCALTIMESTAMP' | 'CURRENT_CATALOG' | 'CURRENT_SCHEMA' | 'NORMALIZE'
    | 'JSON_EXISTS' | 'TRY_CAST' | 'DECIMAL' | 'REAL' | 'DOUBLE' | 'JSON' | 'CHAR' | 'VARCHAR' | 'INTEGER'
    | 'BIGINT' | 'PRECISION' | 'ZONE' | 'AT' | 'COMMENT' | 'ANALYZE' | 'TABLE' | 'VIEW' | 'KEY' | 'OUTER'
    | 'AUTHORIZATION' | 'USER' | 'PROPERTIES' | 'REFRESH' | 'ISOLATION' | 'LEVEL' | 'SERIALIZABLE'
    | 'REPEATABLE' | 'READ' | 'COMMITTED' | 'UNCOMMITTED' | 'ONLY' | 'WRITE' | 'RETURNS' | 'RETURN'
    | 'LANGUAGE' | 'DETERMINISTIC' | 'CALLED' | 'SECURITY' | 'DEFINER' | 'INVOKER' | 'DECLARE' | 'ELSEIF'
    | 'LOOP' | 'WHILE' | 'REPEAT' | 'UNTIL' | 'ITERATE' | 'LEAVE' | 'OVERFLOW' | 'ERROR' | 'COUNT'
    ;

UNICODE_STRING : 'U&' '\'' (~'\'' | '\'\'')* '\'' ;
BINARY_STRING : 'X' '\'' [0-9A-F ]* '\'' ;
fragment IDENT_PART : [A-Z_0-9] | [\u0080-\uFFFE] ;
