/* Snowflake — what differs from Core.g4. Written for parrot. */
grammar Snowflake;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'USE' ('WAREHOUSE' | 'DATABASE' | 'SCHEMA' | 'ROLE')? qualifiedName
    | ('DESCRIBE' | 'DESC') identifier? qualifiedName
    | 'SHOW' ~';'+
    | ('SET' | 'UNSET') ~';'+
    | ('GRANT' | 'REVOKE' | 'COPY' | 'PUT' | 'GET' | 'LIST' | 'REMOVE' | 'CALL' | 'UNDROP') ~';'+
    | 'CREATE' orReplace? ('DATABASE' | 'SCHEMA' | 'WAREHOUSE' | 'STAGE' | 'FILE' 'FORMAT' | 'SEQUENCE' | 'STREAM' | 'TASK' | 'ROLE' | 'FUNCTION' | 'PROCEDURE' | 'SECURE'? 'FUNCTION') ~';'*
    | 'EXECUTE' 'IMMEDIATE' ~';'+
    ;
selectModifierExt : 'TOP' expr ;
afterWhere : ('START' 'WITH' expr)? 'CONNECT' 'BY' 'NOCYCLE'? expr ('START' 'WITH' expr)? ;
afterHaving : 'QUALIFY' expr ;
setOperatorExt : 'MINUS' ;
limitClause
    : 'LIMIT' expr ('OFFSET' expr)?
    | offsetClause fetchClause?
    | fetchClause
    ;
starModifier
    : 'EXCLUDE' ('(' qualifiedName (',' qualifiedName)* ')' | qualifiedName)
    | 'RENAME' ('(' qualifiedName 'AS' identifier (',' qualifiedName 'AS' identifier)* ')' | qualifiedName 'AS' identifier)
    | 'REPLACE' '(' expr 'AS' identifier (',' expr 'AS' identifier)* ')'
    | 'ILIKE' STRING
    ;
joinPart
    : joinType? 'JOIN' tablePrimary joinConstraint
    | 'CROSS' 'JOIN' tablePrimary
    | 'NATURAL' joinType? 'JOIN' tablePrimary
    | 'ASOF' 'JOIN' tablePrimary 'MATCH_CONDITION' '(' expr ')' joinCondition?
    ;
joinConstraint : joinCondition? ;
tableSuffix
    : ('SAMPLE' | 'TABLESAMPLE') identifier? '(' expr ('ROWS')? ')' (('SEED' | 'REPEATABLE') '(' NUMBER ')')?
    | ('AT' | 'BEFORE') '(' identifier '=>' expr ')'
    | 'CHANGES' '(' ~')'* ')'
    ;
tableHint : pivotClause ;
pivotClause
    : 'PIVOT' '(' functionCall 'FOR' identifier 'IN' '(' (expr (',' expr)* | 'ANY' orderByClause? | query) ')' ('DEFAULT' 'ON' 'NULL' '(' expr ')')? ')' (tableAlias columnList?)?
    | 'UNPIVOT' (('INCLUDE' | 'EXCLUDE') 'NULLS')? '(' identifier 'FOR' identifier 'IN' '(' expr (',' expr)* ')' ')' (tableAlias columnList?)?
    ;
tablePrimaryExt : STAGE_PATH ('(' ~')'* ')')? tableAlias? | identifier '(' expr ')' tableAlias? ;
tableFunction : 'LATERAL'? ('TABLE' '(' functionCall ')' | functionName '(' (functionArg (',' functionArg)*)? ')') ;
insertVerb : 'INSERT' 'OVERWRITE'? ;
createTable
    : 'CREATE' orReplace? ('TEMP' | 'TEMPORARY' | 'TRANSIENT' | ('LOCAL' | 'GLOBAL') ('TEMP' | 'TEMPORARY') | 'VOLATILE')? 'TABLE' ifNotExists? tableName
      ( '(' tableElement (',' tableElement)* ')' tableOption* ('AS' query)?
      | tableOption* 'AS' query
      | 'LIKE' tableName
      | 'CLONE' tableName
      )
    ;
tableOption : 'CLUSTER' 'BY' '(' expr (',' expr)* ')' | 'COMMENT' '='? STRING | identifier '=' expr | 'COPY' 'GRANTS' ;
createView : 'CREATE' orReplace? 'SECURE'? 'RECURSIVE'? 'MATERIALIZED'? 'VIEW' ifNotExists? tableName columnList? ('COMMENT' '=' STRING)? 'AS' query ;

comparisonExt : EXTENSION_POINT ;
binaryExt : '->' | 'IS' 'NOT'? 'DISTINCT' 'FROM' ;
likeExt : 'ILIKE' | 'RLIKE' | 'REGEXP' ;
postfixExt
    : '::' dataType
    | ':' (identifier | DQ_TEXT) ('.' (identifier | DQ_TEXT) | '[' expr ']')*
    | '[' expr ']' ('.' (identifier | DQ_TEXT))*
    ;
primaryExt
    : '[' (expr (',' expr)*)? ']'
    | '{' ((STRING | '*') ':' expr (',' STRING ':' expr)*)? '}'
    | '{' '*' ('EXCLUDE' | 'ILIKE') ~'}'* '}'
    | VARIABLE
    | '?'
    | 'IDENTIFIER' '(' (STRING | VARIABLE) ')'
    | ('PRIOR' | 'CONNECT_BY_ROOT') expr
    ;
specialFunction
    : ('SUBSTRING' | 'SUBSTR') '(' expr ('FROM' expr ('FOR' expr)? | ',' expr (',' expr)?) ')'
    | 'TRIM' '(' expr (',' expr)? ')'
    | 'POSITION' '(' expr ('IN' expr | ',' expr (',' expr)?) ')'
    | ('CURRENT_DATE' | 'CURRENT_TIMESTAMP' | 'CURRENT_TIME' | 'LOCALTIMESTAMP' | 'SYSDATE' | 'CURRENT_USER' | 'CURRENT_ROLE') ('(' ')')?
    ;
castFunction : 'CAST' | 'TRY_CAST' ;
extractExpression : ('EXTRACT' | 'DATE_PART') '(' (extractField | STRING) ('FROM' | ',') expr ')' ;
literal
    : NUMBER | STRING | 'NULL' | 'TRUE' | 'FALSE' | DOLLAR_STRING
    | ('DATE' | 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_NTZ' | 'TIMESTAMP_LTZ' | 'TIMESTAMP_TZ') STRING
    | 'INTERVAL' STRING
    ;
dataType
    : typeName ('(' typeParameter (',' typeParameter)* ')')? ('WITH' 'TIME' 'ZONE' | 'WITHOUT' 'TIME' 'ZONE')?
    ;
typeParameter : signedNumber | identifier | identifier dataType ;
functionKeywordExt : 'IFF' | 'LEFT' | 'RIGHT' | 'IDENTIFIER' | 'FLATTEN' | 'REPLACE' | 'ILIKE' | 'RLIKE' | 'REGEXP' | 'INSERT' ;
functionArg : (identifier '=>')? expr ;

nonReserved
    : nonReservedCore | 'USE' | 'WAREHOUSE' | 'ROLE' | 'DESCRIBE' | 'SHOW' | 'UNSET' | 'GRANT' | 'REVOKE'
    | 'COPY' | 'PUT' | 'GET' | 'LIST' | 'REMOVE' | 'CALL' | 'UNDROP' | 'STAGE' | 'FILE' | 'FORMAT'
    | 'STREAM' | 'TASK' | 'FUNCTION' | 'PROCEDURE' | 'SECURE' | 'EXECUTE' | 'IMMEDIATE' | 'TOP'
    | 'NOCYCLE' | 'RENAME' | 'ASOF' | 'MATCH_CONDITION' | 'SAMPLE' | 'SEED' | 'REPEATABLE' | 'AT'
    | 'BEFORE' | 'CHANGES' | 'PIVOT' | 'UNPIVOT' | 'INCLUDE' | 'OVERWRITE' | 'TRANSIENT' | 'VOLATILE'
    | 'CLONE' | 'CLUSTER' | 'GRANTS' | 'RLIKE' | 'REGEXP' | 'IDENTIFIER' | 'SUBSTRING' | 'SUBSTR'
    | 'TRIM' | 'POSITION' | 'SYSDATE' | 'TRY_CAST' | 'DATE_PART' | 'TIMESTAMP_NTZ' | 'TIMESTAMP_LTZ'
    | 'TIMESTAMP_TZ' | 'IFF' | 'FLATTEN' | 'ZONE' | 'LOCALTIMESTAMP' | 'TABLE' | 'KEY' | 'VIEW' | 'VALUE'
    | 'OUTER' | 'CONNECT_BY_ROOT'
    ;

fragment STRING_CHAR : ~['\\] | '\'\'' | '\\' . ;
DOLLAR_STRING : '$$' .*? '$$' ;
VARIABLE : '$' [A-Z0-9_]+ ;
STAGE_PATH : '@' [A-Z0-9_.~/%]+ ;
fragment IDENT_PART : [A-Z_0-9$] | [\u0080-\uFFFE] ;
