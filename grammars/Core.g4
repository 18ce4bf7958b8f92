/*
 * Core of parrot's SQL grammars: the query language most dialects share. Written for parrot.
 * Imported by every dialect grammar (grammars/<Dialect>.g4); a dialect overrides any rule here by
 * defining one of the same name. Rules named *Ext, and the rules marked "hook", exist to be
 * overridden: by default they match EXTENSION_POINT, a token that never occurs in real SQL.
 * Keywords are the quoted literals (case-insensitive via the dialect's options); a keyword is an
 * identifier only where `nonReserved` (per dialect) lists it.
 */
grammar Core;

// ---------------------------------------------------------------- statements

statementList : statement ';'? EOF ;

statement
    : query
    | insertStatement
    | updateStatement
    | deleteStatement
    | createTable
    | createView
    | createIndex
    | dropStatement
    | alterTable
    | truncateStatement
    | mergeStatement
    | withClause (insertStatement | updateStatement | deleteStatement | mergeStatement)
    | transactionStatement
    | explainStatement
    | statementExt
    ;

statementExt : EXTENSION_POINT ;  // hook: dialect-only statements

explainStatement : 'EXPLAIN' explainOption* statement ;
explainOption : 'ANALYZE' | 'VERBOSE' | 'QUERY' 'PLAN' ;

transactionStatement
    : ('BEGIN' | 'START') ('TRANSACTION' | 'WORK')?
    | ('COMMIT' | 'ROLLBACK') ('TRANSACTION' | 'WORK')?
    ;

insertStatement
    : insertVerb 'INTO'? tableName alias? columnList? insertSource onConflictClause? returningClause?
    ;
insertVerb : 'INSERT' ('OR' ('REPLACE' | 'IGNORE' | 'ABORT' | 'FAIL' | 'ROLLBACK'))? | 'REPLACE' ;
insertSource : query | 'DEFAULT' 'VALUES' ;
onConflictClause : EXTENSION_POINT ;  // hook
returningClause : 'RETURNING' selectItem (',' selectItem)* ;

updateStatement
    : 'UPDATE' tableReference 'SET' assignment (',' assignment)* fromClause? whereClause?
      orderByClause? limitClause? returningClause?
    ;
assignment : (qualifiedName | columnList) '=' expr ;

deleteStatement
    : 'DELETE' qualifiedName? 'FROM' tableReference (',' tableReference)* ('USING' tablePrimary (',' tablePrimary)*)?
      whereClause? orderByClause? limitClause? returningClause?
    ;

createTable
    : 'CREATE' orReplace? temporary? 'TABLE' ifNotExists? tableName
      ( '(' tableElement (',' tableElement)* ')' tableOption* ('AS' query)?
      | tableOption* 'AS' query
      | 'LIKE' tableName
      )
    ;
orReplace : 'OR' 'REPLACE' ;
temporary : 'TEMP' | 'TEMPORARY' | 'GLOBAL' 'TEMPORARY' | 'LOCAL' 'TEMPORARY' ;
ifNotExists : 'IF' 'NOT' 'EXISTS' ;
ifExists : 'IF' 'EXISTS' ;
tableElement : tableConstraint | columnDefinition ;
columnDefinition : identifier dataType? columnConstraint* ;
columnConstraint
    : ('CONSTRAINT' identifier)?
      ( 'NOT'? 'NULL'
      | 'PRIMARY' 'KEY' sortDirection? ('AUTOINCREMENT' | 'AUTO_INCREMENT')?
      | 'UNIQUE' 'KEY'?
      | 'DEFAULT' (signedNumber | primary)
      | 'CHECK' '(' expr ')'
      | referencesClause
      | 'COLLATE' qualifiedName
      | 'AUTOINCREMENT' | 'AUTO_INCREMENT'
      | 'GENERATED' ('ALWAYS' | 'BY' 'DEFAULT') 'AS' ('IDENTITY' ('(' ~')'* ')')? | '(' expr ')' ('STORED' | 'VIRTUAL')?)
      | 'COMMENT' STRING
      | columnConstraintExt
      )
    ;
columnConstraintExt : EXTENSION_POINT ;  // hook
tableConstraint
    : ('CONSTRAINT' identifier)?
      ( 'PRIMARY' 'KEY' identifier? '(' indexColumn (',' indexColumn)* ')'
      | ('UNIQUE' | 'KEY' | 'INDEX') ('KEY' | 'INDEX')? identifier? '(' indexColumn (',' indexColumn)* ')'
      | 'CHECK' '(' expr ')'
      | 'FOREIGN' 'KEY' identifier? columnList referencesClause
      )
      ('NOT'? 'DEFERRABLE' ('INITIALLY' ('DEFERRED' | 'IMMEDIATE'))?)?
    ;
referencesClause
    : 'REFERENCES' tableName columnList? (('ON' ('DELETE' | 'UPDATE') referenceAction) | 'MATCH' identifier)*
      ('NOT'? 'DEFERRABLE' ('INITIALLY' ('DEFERRED' | 'IMMEDIATE'))?)?
    ;
referenceAction : 'CASCADE' | 'RESTRICT' | 'NO' 'ACTION' | 'SET' ('NULL' | 'DEFAULT') ;
tableOption : EXTENSION_POINT ;  // hook: ENGINE = …, WITHOUT ROWID, …
balanced : '(' (~('(' | ')') | balanced)* ')' ;  // any parenthesised tokens (opaque options)
indexColumn : expr sortDirection? ;

createView
    : 'CREATE' orReplace? temporary? 'MATERIALIZED'? 'VIEW' ifNotExists? tableName columnList?
      ('WITH' balanced)? 'AS' query
    ;
createIndex
    : 'CREATE' 'UNIQUE'? 'INDEX' ifNotExists? identifier? 'ON' tableName
      '(' indexColumn (',' indexColumn)* ')' whereClause?
    ;
dropStatement
    : 'DROP' ('TABLE' | 'VIEW' | 'MATERIALIZED' 'VIEW' | 'INDEX' | 'SCHEMA' | 'DATABASE' | 'SEQUENCE')
      ifExists? tableName (',' tableName)* ('CASCADE' | 'RESTRICT')?
    ;
alterTable
    : 'ALTER' 'TABLE' ifExists? tableName alterAction (',' alterAction)*
    ;
alterAction
    : 'ADD' 'COLUMN'? ifNotExists? columnDefinition
    | 'ADD' tableConstraint
    | 'DROP' 'COLUMN'? ifExists? identifier ('CASCADE' | 'RESTRICT')?
    | 'DROP' 'CONSTRAINT' ifExists? identifier
    | 'RENAME' 'COLUMN'? identifier 'TO' identifier
    | 'RENAME' 'TO' identifier
    | 'ALTER' 'COLUMN'? identifier ('TYPE' | 'SET' 'DATA' 'TYPE') dataType ('USING' expr)?
    | 'ALTER' 'COLUMN'? identifier ('SET' 'DEFAULT' expr | 'DROP' 'DEFAULT' | ('SET' | 'DROP') 'NOT' 'NULL')
    ;
truncateStatement : 'TRUNCATE' 'TABLE'? tableName (',' tableName)* ;

mergeStatement
    : 'MERGE' 'INTO'? tableName tableAlias? 'USING' tablePrimary 'ON' expr mergeWhen+ returningClause?
    ;
mergeWhen
    : 'WHEN' 'NOT'? 'MATCHED' ('BY' ('SOURCE' | 'TARGET'))? ('AND' expr)? 'THEN'
      ( 'UPDATE' 'SET' assignment (',' assignment)* whereClause?
      | 'DELETE'
      | 'INSERT' columnList? ('VALUES' valuesRow | 'DEFAULT' 'VALUES' | 'ROW')
      | 'DO' 'NOTHING'
      )
    ;

// ---------------------------------------------------------------- queries

query : withClause? queryExpression ;

withClause : 'WITH' 'RECURSIVE'? commonTableExpression (',' commonTableExpression)* ;
commonTableExpression : identifier columnList? 'AS' ('NOT'? 'MATERIALIZED')? '(' query ')' ;

queryExpression : queryTerm (setOperator queryTerm)* orderByClause? limitClause? queryTail* ;
queryTail : EXTENSION_POINT ;  // hook: FOR UPDATE, SETTINGS, FORMAT, …

setOperator : ('UNION' | 'EXCEPT' | 'INTERSECT' | setOperatorExt) ('ALL' | 'DISTINCT')? ;
setOperatorExt : EXTENSION_POINT ;  // hook: MINUS

queryTerm : querySpecification | '(' query ')' | valuesClause ;
// A query inside an expression starts with its keyword, never with '(': `((SELECT 1))` is then a
// parenthesised expression around a subquery, decided with two tokens of look-ahead instead of
// a scan through every nested parenthesis (a measured 10-100x slow-down on ATIS-style queries).
subquery : withClause? (querySpecification | valuesClause) (setOperator queryTerm)* orderByClause? limitClause? queryTail* ;

valuesClause : 'VALUES' valuesRow (',' valuesRow)* ;
valuesRow : '(' expr (',' expr)* ')' | expr ;

querySpecification
    : 'SELECT' selectModifier* selectList intoClause? fromClause? afterFrom* whereClause? afterWhere*
      groupByClause? havingClause? windowClause? afterHaving*
    ;
selectModifier : 'ALL' | 'DISTINCT' | selectModifierExt ;
selectModifierExt : EXTENSION_POINT ;  // hook: TOP n, DISTINCT ON, …
afterFrom : EXTENSION_POINT ;    // hook: PREWHERE, …
afterWhere : EXTENSION_POINT ;   // hook: CONNECT BY, …
afterHaving : EXTENSION_POINT ;  // hook: QUALIFY, …
intoClause : EXTENSION_POINT ;   // hook: SELECT … INTO

selectList : selectItem (',' selectItem)* ;  // dialects with trailing commas override
selectItem
    : '*' starModifier*
    | qualifiedName '.' '*' starModifier*
    | expr alias?
    ;
starModifier : EXTENSION_POINT ;  // hook: EXCEPT (…), REPLACE (…), …
alias : 'AS'? aliasName ;
aliasName : identifier | STRING ;

fromClause : 'FROM' tableReference (',' tableReference)* ;

tableReference : tablePrimary joinPart* ;
joinPart
    : joinType? 'JOIN' tablePrimary joinConstraint
    | 'CROSS' 'JOIN' tablePrimary
    | 'NATURAL' joinType? 'JOIN' tablePrimary
    | joinExt
    ;
joinExt : EXTENSION_POINT ;  // hook: CROSS APPLY, ARRAY JOIN, ASOF, …
joinType : 'INNER' | ('LEFT' | 'RIGHT' | 'FULL') 'OUTER'? ;
joinConstraint : joinCondition ;  // dialects where JOIN without ON is a cross join: joinCondition?
joinCondition : 'ON' expr | 'USING' columnList ;

tablePrimary
    : relation tableSuffix*
    | 'LATERAL'? '(' query ')' tableSuffix* (tableAlias columnList?)? tableHint*
    | '(' tableReference ')' tableSuffix* (tableAlias columnList?)? tableHint*
    | valuesTable
    | tableFunction tableSuffix* (tableAlias columnList?)? tableHint*
    | tablePrimaryExt
    ;
relation : tableName tableSuffix* (tableAlias columnList?)? tableHint* ;
tableAlias : alias ;
tableHint : EXTENSION_POINT ;  // hook: WITH (NOLOCK), USE INDEX (…), …
valuesTable : '(' valuesClause ')' (tableAlias columnList?)? ;
tableFunction : 'LATERAL'? functionName '(' (functionArg (',' functionArg)*)? ')' ;
tableSuffix : EXTENSION_POINT ;       // hook: FINAL, WITH (NOLOCK), TABLESAMPLE, …
tablePrimaryExt : EXTENSION_POINT ;   // hook: UNNEST, …

whereClause : 'WHERE' expr ;
groupByClause : 'GROUP' 'BY' ('ALL' | 'DISTINCT')? groupingElement (',' groupingElement)* groupByTail? ;
groupByTail : 'WITH' ('ROLLUP' | 'CUBE') ;
groupingElement
    : ('ROLLUP' | 'CUBE') '(' expr (',' expr)* ')'
    | 'GROUPING' 'SETS' '(' groupingElement (',' groupingElement)* ')'
    | '(' ')'
    | expr
    ;
havingClause : 'HAVING' expr ;
windowClause : 'WINDOW' windowDefinition (',' windowDefinition)* ;
windowDefinition : identifier 'AS' '(' windowSpec ')' ;

orderByClause : 'ORDER' 'BY' orderItem (',' orderItem)* ;
orderItem : expr sortDirection? ('NULLS' ('FIRST' | 'LAST'))? ;
sortDirection : 'ASC' | 'DESC' ;

limitClause
    : 'LIMIT' expr (('OFFSET' | ',') expr)?
    | offsetClause fetchClause?
    | fetchClause
    ;
offsetClause : 'OFFSET' expr ('ROW' | 'ROWS')? ;
fetchClause : 'FETCH' ('FIRST' | 'NEXT') expr? ('ROW' | 'ROWS') ('ONLY' | 'WITH' 'TIES') ;

columnList : '(' identifier (',' identifier)* ')' ;

// ---------------------------------------------------------------- expressions

expr
    : primary
    | expr postfix
    | ('-' | '+' | '~') expr
    | expr concatOperator expr
    | expr ('*' | '/' | '%' | multiplicativeExt) expr
    | expr ('+' | '-') expr
    | expr ('<<' | '>>' | '&' | '|' | '^') expr
    | expr comparisonOperator (('ANY' | 'ALL' | 'SOME') '(' (subquery | expr) ')' | expr)
    | expr 'IS' 'NOT'? ('NULL' | 'TRUE' | 'FALSE' | 'UNKNOWN' | 'DISTINCT' 'FROM' expr)
    | expr 'NOT'? 'IN' ('(' (subquery | expr (',' expr)*)? ')' | inTargetExt)
    | expr 'NOT'? 'BETWEEN' boundExpr 'AND' expr
    | expr 'NOT'? likeOperator ('ANY' | 'ALL' | 'SOME')? expr ('ESCAPE' expr)?
    | expr binaryExt expr
    | 'NOT' expr
    | expr 'AND' expr
    | expr 'OR' expr
    ;
// BETWEEN's lower bound: no AND/OR/comparison inside, so `x BETWEEN 1 AND 2` needs no
// full-context look-ahead (with `expr` there, SLL prediction failed on every parenthesised BETWEEN)
boundExpr
    : primary
    | boundExpr postfix
    | ('-' | '+' | '~') boundExpr
    | boundExpr concatOperator boundExpr
    | boundExpr ('*' | '/' | '%' | multiplicativeExt) boundExpr
    | boundExpr ('+' | '-') boundExpr
    | boundExpr ('<<' | '>>' | '&' | '|' | '^') boundExpr
    ;
postfix : 'COLLATE' qualifiedName | postfixExt ;
postfixExt : EXTENSION_POINT ;          // hook: ::type, [i], AT TIME ZONE, …
concatOperator : '||' ;
multiplicativeExt : EXTENSION_POINT ;   // hook: DIV, MOD
comparisonOperator : '=' | '<>' | '!=' | '<' | '<=' | '>' | '>=' | comparisonExt ;
comparisonExt : EXTENSION_POINT ;       // hook: ==, <=>, …
likeOperator : 'LIKE' | likeExt ;
likeExt : EXTENSION_POINT ;             // hook: ILIKE, GLOB, REGEXP, SIMILAR TO, …
inTargetExt : EXTENSION_POINT ;         // hook
binaryExt : EXTENSION_POINT ;           // hook: XOR, …

primary
    : literal
    | '(' subquery ')'
    | '(' expr (',' expr)* ')'
    | 'EXISTS' '(' query ')'
    | caseExpression
    | castExpression
    | extractExpression
    | specialFunction
    | functionCall
    | columnReference
    | primaryExt
    ;
primaryExt : EXTENSION_POINT ;       // hook: parameters, arrays, lambdas, …
specialFunction : EXTENSION_POINT ;  // hook: SUBSTRING(… FROM …), TRIM(… FROM …), …
extractExpression : 'EXTRACT' '(' extractField 'FROM' expr ')' ;
extractField : identifier ;

caseExpression
    : 'CASE' expr? ('WHEN' expr 'THEN' expr)+ ('ELSE' expr)? 'END'
    ;
castExpression : castFunction '(' expr 'AS' dataType ')' ;
castFunction : 'CAST' ;

functionCall
    : functionName '(' functionArguments? ')' withinGroup? filterClause? nullTreatment? overClause?
    ;
functionArguments
    : '*'
    | ('DISTINCT' | 'ALL')? functionArg (',' functionArg)* nullTreatment? orderByClause? limitClause? argumentTail?
    ;
argumentTail : EXTENSION_POINT ;  // hook: SEPARATOR 'x', …
functionArg : (identifier '=>')? expr ;
nullTreatment : ('IGNORE' | 'RESPECT') 'NULLS' ;
withinGroup : 'WITHIN' 'GROUP' '(' orderByClause ')' ;
filterClause : 'FILTER' '(' 'WHERE' expr ')' ;
overClause : 'OVER' (identifier | '(' windowSpec ')') ;
windowSpec : identifier? ('PARTITION' 'BY' expr (',' expr)*)? orderByClause? frameClause? ;
frameClause
    : ('ROWS' | 'RANGE' | 'GROUPS') (frameBound | 'BETWEEN' frameBound 'AND' frameBound)
      ('EXCLUDE' ('CURRENT' 'ROW' | 'GROUP' | 'TIES' | 'NO' 'OTHERS'))?
    ;
frameBound
    : 'UNBOUNDED' ('PRECEDING' | 'FOLLOWING')
    | 'CURRENT' 'ROW'
    | expr ('PRECEDING' | 'FOLLOWING')
    ;

functionName : qualifiedName | functionKeyword ;
functionKeyword : 'LEFT' | 'RIGHT' | 'IF' | 'REPLACE' | 'INSERT' | functionKeywordExt ;
functionKeywordExt : EXTENSION_POINT ;  // hook

columnReference : qualifiedName ;

literal
    : NUMBER
    | STRING+
    | 'NULL'
    | 'TRUE'
    | 'FALSE'
    | ('DATE' | 'TIME' | 'TIMESTAMP') STRING
    | intervalLiteral
    | literalExt
    ;
literalExt : EXTENSION_POINT ;  // hook: N'…', X'…', $$…$$, …
intervalLiteral : 'INTERVAL' expr intervalUnit? ;
intervalUnit
    : unitName ('TO' unitName)?
    ;
unitName
    : 'YEAR' | 'QUARTER' | 'MONTH' | 'WEEK' | 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND'
    | 'YEARS' | 'MONTHS' | 'WEEKS' | 'DAYS' | 'HOURS' | 'MINUTES' | 'SECONDS'
    | 'MILLISECOND' | 'MICROSECOND' | 'MILLISECONDS' | 'MICROSECONDS'
    ;
signedNumber : ('-' | '+')? NUMBER ;

dataType
    : typeName ('(' typeParameter (',' typeParameter)* ')')? typeSuffix*
    ;
typeName : identifier+ ;
typeParameter : signedNumber | identifier | STRING | dataType ;
typeSuffix : EXTENSION_POINT ;  // hook: [], UNSIGNED, WITH TIME ZONE, …

// ---------------------------------------------------------------- names

tableName : qualifiedName ;
qualifiedName : identifier ('.' identifier)* ;

identifier : IDENTIFIER | quotedIdentifier | nonReserved ;
quotedIdentifier : DQ_TEXT ;

// Keywords usable as names in every dialect; dialects extend via nonReserved.
nonReservedCore
    : 'ABORT' | 'ACTION' | 'ALWAYS' | 'ANALYZE' | 'ASC' | 'AUTOINCREMENT' | 'AUTO_INCREMENT'
    | 'BEGIN' | 'CASCADE' | 'COLUMN' | 'COMMENT' | 'COMMIT' | 'CUBE' | 'CURRENT' | 'DATA'
    | 'DATABASE' | 'DATE' | 'DAY' | 'DAYS' | 'DEFERRED' | 'DESC' | 'EXCLUDE' | 'EXPLAIN'
    | 'FAIL' | 'FILTER' | 'FIRST' | 'FOLLOWING' | 'GENERATED' | 'GLOBAL' | 'GROUPS' | 'HOUR'
    | 'HOURS' | 'IDENTITY' | 'IGNORE' | 'IMMEDIATE' | 'INDEX' | 'INITIALLY' | 'KEY' | 'LAST'
    | 'LOCAL' | 'MATCH' | 'MATERIALIZED' | 'MICROSECOND' | 'MICROSECONDS' | 'MILLISECOND'
    | 'MILLISECONDS' | 'MINUTE' | 'MINUTES' | 'MONTH' | 'MONTHS' | 'NEXT' | 'NO' | 'NULLS'
    | 'OTHERS' | 'PARTITION' | 'PLAN' | 'PRECEDING' | 'QUARTER' | 'QUERY' | 'RANGE' | 'RECURSIVE'
    | 'RENAME' | 'REPLACE' | 'RESPECT' | 'RESTRICT' | 'ROLLBACK' | 'ROW' | 'ROWS' | 'SCHEMA'
    | 'SECOND' | 'SECONDS' | 'SEQUENCE' | 'SETS' | 'START' | 'STORED' | 'TEMP' | 'TEMPORARY'
    | 'TIES' | 'TIME' | 'TIMESTAMP' | 'TRANSACTION' | 'TRUNCATE' | 'TYPE' | 'UNBOUNDED'
    | 'UNKNOWN' | 'VERBOSE' | 'VIEW' | 'VIRTUAL' | 'WEEK' | 'WEEKS' | 'WITHIN' | 'WORK' | 'YEAR'
    | 'YEARS' | 'ROLLUP' | 'SOME' | 'INTERVAL' | 'EXTRACT' | 'TO' | 'MERGE' | 'MATCHED' | 'SOURCE'
    | 'TARGET' | 'NOTHING' | 'DO'
    ;
nonReserved : nonReservedCore ;

// ---------------------------------------------------------------- lexer

EXTENSION_POINT : '\u0000\u0001' ;

STRING : '\'' STRING_CHAR* '\'' ;
fragment STRING_CHAR : ~'\'' | '\'\'' ;
DQ_TEXT : '"' (~'"' | '""')* '"' ;

NUMBER
    : DIGIT+ ('.' DIGIT*)? EXPONENT?
    | '.' DIGIT+ EXPONENT?
    | '0' 'X' HEX_DIGIT+
    ;
fragment DIGIT : [0-9] ;
fragment HEX_DIGIT : [0-9A-F] ;
fragment EXPONENT : 'E' [+-]? DIGIT+ ;

IDENTIFIER : IDENT_START IDENT_PART* ;
fragment IDENT_START : [A-Z_] | [\u0080-\uFFFE] ;
fragment IDENT_PART : [A-Z_0-9] | [\u0080-\uFFFE] ;

LINE_COMMENT : '--' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
WS : [ \t\r\n\f\u00A0]+ -> channel(HIDDEN) ;
