/* DuckDB — what differs from Core.g4 (much of PostgreSQL's syntax, plus its own). Written for parrot. */
grammar Duckdb;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'SET' ('SESSION' | 'LOCAL' | 'GLOBAL')? qualifiedName ('TO' | '=') expr
    | 'RESET' ('SESSION' | 'LOCAL' | 'GLOBAL')? qualifiedName
    | ('DESCRIBE' | 'SHOW' | 'SUMMARIZE') 'TABLE'? (query | qualifiedName | STRING)?
    | 'SHOW' 'ALL' 'TABLES'
    | 'ANALYZE' qualifiedName?
    | 'SHOW' 'TABLES' ('FROM' qualifiedName)?
    | 'PRAGMA' qualifiedName (('=' expr) | '(' (expr (',' expr)*)? ')')?
    | 'FORCE'? ('INSTALL' | 'LOAD') (identifier | STRING) ('FROM' (identifier | STRING))?
    | 'ATTACH' 'DATABASE'? ifNotExists? STRING ('AS' identifier)? ('(' ~')'* ')')?
    | 'DETACH' 'DATABASE'? ifExists? identifier
    | 'USE' qualifiedName
    | 'CREATE' orReplace? 'SCHEMA' ifNotExists? qualifiedName
    | 'CREATE' orReplace? temporary? 'SEQUENCE' ifNotExists? qualifiedName ~';'*
    | 'CREATE' orReplace? temporary? ('MACRO' | 'FUNCTION') qualifiedName macroOverload (',' macroOverload)*
    | 'CREATE' 'TYPE' qualifiedName 'AS' ('ENUM' '(' (STRING (',' STRING)*)? ')' | dataType)
    | 'COPY' (tableName columnList? | '(' query ')') ('FROM' | 'TO') (STRING | identifier) 'WITH'? balanced?
    | 'SET' 'VARIABLE' identifier ('=' | 'TO') expr
    | 'CHECKPOINT' | 'VACUUM' tableName?
    | 'FROM' tableReference (',' tableReference)* whereClause? ('SELECT' selectList)?
    | pivotStatement
    ;
macroOverload : '(' (macroParam (',' macroParam)*)? ')' 'AS' ('TABLE' query | expr) ;
macroParam : identifier dataType? ((':=' | '=>') expr)? ;
pivotStatement
    : 'PIVOT' tableReference 'ON' expr (',' expr)* ('USING' selectList)? groupByClause?
    | 'UNPIVOT' tableReference 'ON' expr alias? (',' expr alias?)*
      ('INTO' 'NAME' identifier 'VALUE' identifier (',' identifier)*)?
    ;
pivotClause
    : 'PIVOT' '(' expr alias? (',' expr alias?)* ','?
      ('FOR' expr 'IN' ('(' expr alias? (',' expr alias?)* ')' | identifier))+ groupByClause? ')'
      (tableAlias columnList?)?
    | 'UNPIVOT' (('INCLUDE' | 'EXCLUDE') 'NULLS')? '(' (identifier | columnList) 'FOR' identifier
      'IN' '(' expr alias? (',' expr alias?)* ')' ')' (tableAlias columnList?)?
    ;
commonTableExpression
    : identifier columnList? ('USING' 'KEY' columnList)? 'AS' ('NOT'? 'MATERIALIZED')?
      '(' (query | pivotStatement) ')'
    ;
setOperator : ('UNION' | 'EXCEPT' | 'INTERSECT') ('ALL' | 'DISTINCT')? ('BY' 'NAME')? ;
filterClause : 'FILTER' '(' 'WHERE'? expr ')' ;
functionArguments
    : '*'
    | orderByClause
    | ('DISTINCT' | 'ALL')? functionArg (',' functionArg)* (orderByClause nullTreatment?)?
    ;
selectList : selectItem (',' selectItem)* ','? ;
selectItem
    : '*' starModifier*
    | qualifiedName '.' '*' starModifier*
    | identifier ':' expr
    | expr alias?
    ;
selectModifierExt : 'DISTINCT' 'ON' '(' expr (',' expr)* ')' ;
querySpecification
    : 'SELECT' selectModifier* selectList intoClause? fromClause? afterFrom* whereClause? afterWhere*
      groupByClause? havingClause? windowClause? afterHaving*
    | fromClause ('SELECT' selectModifier* selectList)? whereClause? groupByClause? havingClause?
      windowClause? afterHaving*
    ;
afterHaving : 'QUALIFY' expr ;
queryTail : 'USING' 'SAMPLE' expr ('PERCENT' | '%' | 'ROWS')? balanced? ('REPEATABLE' '(' NUMBER ')')? ;
tableHint : tableSuffix | pivotClause | 'AT' '(' identifier '=>' expr ')' ;
orderByClause : 'ORDER' 'BY' ('ALL' sortDirection? ('NULLS' ('FIRST' | 'LAST'))? | orderItem (',' orderItem)*) ;
limitClause
    : 'LIMIT' expr ('%' | 'PERCENT')? ('OFFSET' expr)?
    | 'OFFSET' expr ('LIMIT' expr)?
    | offsetClause? fetchClause
    ;
starModifier
    : 'EXCLUDE' ('(' qualifiedName (',' qualifiedName)* ')' | qualifiedName)
    | 'REPLACE' '(' expr 'AS' identifier (',' expr 'AS' identifier)* ')'
    | 'RENAME' '(' qualifiedName 'AS' identifier (',' qualifiedName 'AS' identifier)* ')'
    ;
joinType
    : 'INNER' | ('LEFT' | 'RIGHT' | 'FULL') 'OUTER'? | ('LEFT' | 'RIGHT')? ('SEMI' | 'ANTI')
    | 'ASOF' (('LEFT' | 'RIGHT' | 'FULL') 'OUTER'? | 'INNER')?
    ;
joinPart
    : joinType? 'JOIN' tablePrimary joinConstraint
    | ('CROSS' | 'POSITIONAL') 'JOIN' tablePrimary
    | 'NATURAL' joinType? 'JOIN' tablePrimary
    ;
tableSuffix
    : ('TABLESAMPLE' | 'USING' 'SAMPLE') (identifier '(' expr ('PERCENT' | '%' | 'ROWS')? ')' | expr ('PERCENT' | '%' | 'ROWS')? balanced?)
      ('REPEATABLE' '(' NUMBER ')')?
    ;
tablePrimaryExt : identifier ':' tablePrimary | STRING (tableAlias columnList?)? | pivotStatement (tableAlias columnList?)? | '(' pivotStatement ')' (tableAlias columnList?)? ;
tableFunction : 'LATERAL'? functionName '(' (functionArg (',' functionArg)*)? ')' ('WITH' 'ORDINALITY')? ;
insertVerb : 'INSERT' ('OR' ('REPLACE' | 'IGNORE'))? ;
insertSource : 'BY' ('NAME' | 'POSITION') query | query | 'DEFAULT' 'VALUES' ;
onConflictClause
    : 'ON' 'CONFLICT' ('(' indexColumn (',' indexColumn)* ')' whereClause?)?
      'DO' ('NOTHING' | 'UPDATE' 'SET' assignment (',' assignment)* whereClause?)
    ;
groupByClause : 'GROUP' 'BY' ('ALL' | 'DISTINCT')? (groupingElement (',' groupingElement)*)? ;

postfixExt
    : '::' dataType
    | '[' expr? (':' expr? (':' expr?)?)? ']'
    | 'AT' 'TIME' 'ZONE' expr
    | 'ISNULL' | 'NOTNULL'
    ;
multiplicativeExt : '//' | '**' ;
comparisonExt : '==' ;
binaryExt
    : '~' | '!~' | '~~' | '!~~' | '~~*' | '!~~*' | '~~~' | '^@' | '@>' | '<@' | '&&' | '->' | '->>' | '#>' | '#>>'
    | 'IS' 'NOT'? ('DISTINCT' 'FROM')? | '@' | '<->' | '<=>' | ':='
    ;
likeExt : 'ILIKE' | 'GLOB' | 'SIMILAR' 'TO' | 'REGEXP' ;
primaryExt
    : '[' (expr (',' expr)* ','?)? ']'
    | 'ARRAY' ('[' (expr (',' expr)* ','?)? ']' | '(' query ')')
    | '{' structField (',' structField)* ','? '}'
    | '(' expr ')' ('.' (identifier | '*'))+
    | 'MAP' '{' (expr ':' expr (',' expr ':' expr)*)? '}'
    | 'ROW' '(' (expr (',' expr)*)? ')'
    | 'LAMBDA' identifier (',' identifier)* ':' expr
    | ('COLUMNS' | '*' 'COLUMNS') '(' (expr | '*' starModifier*) ')'
    | PARAMETER
    | POSITIONAL_REF
    | '@' primary
    | '[' expr 'FOR' identifier (',' identifier)* 'IN' expr ('IF' expr)? ']'
    | GROUPED_NUMBER
    | 'DEFAULT'
    ;
structField : (identifier | STRING) ':' expr ;
specialFunction
    : 'SUBSTRING' '(' expr ('FROM' expr ('FOR' expr)? | 'FOR' expr) ')'
    | 'TRIM' '(' ('BOTH' | 'LEADING' | 'TRAILING')? (expr? 'FROM')? expr (',' expr)* ')'
    | 'POSITION' '(' expr 'IN' expr ')'
    | ('CURRENT_DATE' | 'CURRENT_TIME' | 'CURRENT_TIMESTAMP' | 'LOCALTIME' | 'LOCALTIMESTAMP'
      | 'CURRENT_USER' | 'USER' | 'CURRENT_ROLE' | 'CURRENT_SCHEMA')
    ;
castFunction : 'CAST' | 'TRY_CAST' ;
literalExt : ESCAPE_STRING | DOLLAR_STRING | BIT_STRING ;
literal
    : NUMBER | STRING+ | 'NULL' | 'TRUE' | 'FALSE' | literalExt
    | ('DATE' | 'TIME' | 'TIMESTAMP' | 'TIMESTAMPTZ') STRING
    | 'TIMESTAMP' 'WITH' 'TIME' 'ZONE' STRING
    | intervalLiteral
    ;
intervalLiteral : 'INTERVAL' (STRING | '(' expr ')' | NUMBER | PARAMETER | columnReference) intervalUnit? ;
typeSuffix : '[' NUMBER? ']' | ('WITH' | 'WITHOUT') 'TIME' 'ZONE' | 'VARYING' ;
dataType
    : ('STRUCT' | 'ROW') '(' identifier dataType (',' identifier dataType)* ')' typeSuffix*
    | ('MAP') '(' dataType ',' dataType ')' typeSuffix*
    | 'UNION' '(' identifier dataType (',' identifier dataType)* ')' typeSuffix*
    | 'ENUM' '(' STRING (',' STRING)* ')' typeSuffix*
    | typeName ('(' typeParameter (',' typeParameter)* ')')? typeSuffix*
    ;
temporary : 'TEMP' | 'TEMPORARY' ;
typeParameter : signedNumber | dataType ;
functionKeywordExt : 'COALESCE' | 'NULLIF' | 'GREATEST' | 'LEAST' | 'FILTER' | 'MAP' | 'ROW' | 'GLOB' | 'STRUCT' ;
functionArg
    : (identifier (':=' | '=>'))? (expr | 'LAMBDA' identifier (',' identifier)* ':' expr)
    | qualifiedName '.' '*'
    ;
quotedIdentifier : DQ_TEXT ;

nonReserved
    : nonReservedCore | 'SESSION' | 'RESET' | 'DESCRIBE' | 'SHOW' | 'SUMMARIZE' | 'TABLES' | 'PRAGMA'
    | 'INSTALL' | 'LOAD' | 'ATTACH' | 'DETACH' | 'USE' | 'MACRO' | 'ENUM' | 'COPY' | 'CHECKPOINT'
    | 'VACUUM' | 'PIVOT' | 'UNPIVOT' | 'NAME' | 'VALUE' | 'SAMPLE' | 'PERCENT' | 'RENAME'
    | 'ANTI' | 'SEMI' | 'POSITIONAL' | 'ORDINALITY' | 'CONFLICT' | 'NOTHING' | 'POSITION'
    | 'ZONE' | 'MAP' | 'LAMBDA' | 'COLUMNS' | 'SUBSTRING' | 'TRIM' | 'TRY_CAST' | 'TIMESTAMPTZ'
    | 'STRUCT' | 'VARYING' | 'COALESCE' | 'NULLIF' | 'GREATEST' | 'LEAST' | 'GLOB' | 'REGEXP'
    | 'ROW' | 'KEY' | 'TYPE' | 'SEQUENCE' | 'ILIKE' | 'SIMILAR' | 'LOCALTIME' | 'LOCALTIMESTAMP'
    | 'CURRENT_SCHEMA' | 'USER' | 'ASOF' | 'LEADING' | 'TRAILING' | 'BOTH' | 'VALUES' | 'INSERT'
    | 'UPDATE' | 'DELETE' | 'TABLE' | 'EXISTS' | 'VARIABLE' | 'FUNCTION' | 'FORCE' | 'AT'
    ;

ESCAPE_STRING : 'E' '\'' (~['\\] | '\'\'' | '\\' .)* '\'' ;
BIT_STRING : [BX] '\'' [0-9A-F]* '\'' ;
DOLLAR_STRING : '$' DOLLAR_TAG? '$' .*? '$' DOLLAR_TAG? '$' ;
fragment DOLLAR_TAG : [A-Z_] [A-Z_0-9]* ;
PARAMETER : '?' DIGIT* | '$' (DIGIT+ | IDENT_START IDENT_PART*) ;
POSITIONAL_REF : '#' DIGIT+ ;
GROUPED_NUMBER : DIGIT+ ('_' DIGIT+)+ ('.' DIGIT+ ('_' DIGIT+)*)? ('E' [+-]? DIGIT+ ('_' DIGIT+)*)? ;
fragment IDENT_PART : [A-Z_0-9$] | [\u0080-\uFFFE] ;
