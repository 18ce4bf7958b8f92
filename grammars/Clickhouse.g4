/* ClickHouse — what differs from Core.g4. Written for parrot. */
grammar Clickhouse;
options { caseInsensitive = true; }
import Core;

statementExt
    : 'USE' identifier
    | ('DESCRIBE' | 'DESC') 'TABLE'? (tableName | tableFunction)
    | 'SHOW' ~';'+
    | 'SET' assignment (',' assignment)*
    | 'CREATE' ('DATABASE' | 'SCHEMA') ifNotExists? identifier ~';'*
    | ('OPTIMIZE' | 'SYSTEM' | 'KILL' | 'GRANT' | 'REVOKE' | 'DETACH' | 'ATTACH' | 'EXCHANGE') ~';'+
    | 'RENAME' 'TABLE' tableName 'TO' tableName (',' tableName 'TO' tableName)*
    | 'EXISTS' 'TABLE'? tableName
    | 'CHECK' 'TABLE' tableName
    | 'CREATE' orReplace? 'FUNCTION' identifier onCluster? 'AS' expr
    | 'CREATE' orReplace? 'DICTIONARY' ifNotExists? tableName onCluster?
      '(' tableElement (',' tableElement)* ')' dictionaryOption*
    | 'TRUNCATE' ('TABLE' | 'DATABASE')? ifExists? tableName onCluster?
    ;
onCluster : 'ON' 'CLUSTER' (identifier | STRING) ;
dictionaryOption
    : 'PRIMARY' 'KEY' expr (',' expr)*
    | ('SOURCE' | 'LAYOUT' | 'LIFETIME' | 'RANGE' | 'SETTINGS') balanced
    | 'COMMENT' STRING
    ;
explainStatement : 'EXPLAIN' ('AST' | 'SYNTAX' | 'PLAN' | 'PIPELINE' | 'ESTIMATE' | 'QUERY' 'TREE')? (identifier '=' expr (',' identifier '=' expr)*)? statement ;
commonTableExpression
    : identifier columnList? 'AS' 'MATERIALIZED'? '(' query ')'
    | expr 'AS' identifier
    ;
selectList : selectItem (',' selectItem)* ','? ;
selectModifierExt : 'DISTINCT' 'ON' '(' expr (',' expr)* ')' | 'TOP' NUMBER ('WITH' 'TIES')? ;
afterFrom : 'PREWHERE' expr ;
groupByTail : 'WITH' ('ROLLUP' | 'CUBE' | 'TOTALS') ('WITH' 'TOTALS')? ;
afterHaving : 'QUALIFY' expr ;
orderByClause
    : 'ORDER' 'BY' (orderItem (',' orderItem)* | 'ALL' sortDirection?)
      ('INTERPOLATE' ('(' (identifier ('AS' expr)? (',' identifier ('AS' expr)?)*)? ')')?)?
    ;
orderItem
    : expr sortDirection? ('NULLS' ('FIRST' | 'LAST'))? ('COLLATE' STRING)?
      ('WITH' 'FILL' ('FROM' expr)? ('TO' expr)? ('STEP' expr)? ('STALENESS' expr)?)?
    ;
typeName : identifier ;
limitClause
    : 'LIMIT' expr ((',' | 'OFFSET') expr)? 'BY' expr (',' expr)* ('LIMIT' expr ((',' | 'OFFSET') expr)? ('WITH' 'TIES')?)?
    | 'LIMIT' expr ((',' | 'OFFSET') expr)? ('WITH' 'TIES')?
    | offsetClause fetchClause?
    | fetchClause
    ;
queryTail : 'SETTINGS' setting (',' setting)* | 'FORMAT' identifier ;
setting : identifier ('=' expr)? ;
queryTerm : querySpecification (orderByClause? limitClause)? | '(' query ')' | valuesClause ;
dropStatement
    : 'DROP' 'TEMPORARY'? ('TABLE' | 'VIEW' | 'DATABASE' | 'DICTIONARY' | 'FUNCTION' | 'INDEX')
      ifExists? tableName (',' tableName)* onCluster? 'SYNC'?
    ;
joinPart
    : joinType? 'JOIN' tablePrimary joinConstraint
    | ('GLOBAL' | 'LOCAL')? 'CROSS' 'JOIN' tablePrimary
    | 'PASTE' 'JOIN' tablePrimary
    | 'LEFT'? 'ARRAY' 'JOIN' expr alias? (',' expr alias?)*
    ;
joinType
    : ('GLOBAL' | 'LOCAL')? joinStrictness? ('INNER' | ('LEFT' | 'RIGHT' | 'FULL') 'OUTER'?) joinStrictness?
    | ('GLOBAL' | 'LOCAL')? joinStrictness
    | ('GLOBAL' | 'LOCAL')
    ;
joinStrictness : 'ANY' | 'ALL' | 'ASOF' | 'SEMI' | 'ANTI' ;
tableHint : 'FINAL' | 'SAMPLE' expr ('OFFSET' expr)? ;
insertStatement
    : 'INSERT' 'INTO' 'TABLE'? (tableName | 'FUNCTION' tableFunction) columnList?
      ('SETTINGS' assignment (',' assignment)*)? (query | ('FORMAT' identifier | 'VALUES') ~';'*)
    ;
updateStatement : 'ALTER' 'TABLE' tableName 'UPDATE' assignment (',' assignment)* whereClause ;
deleteStatement
    : 'DELETE' 'FROM' tableName onCluster? whereClause
    | 'ALTER' 'TABLE' tableName 'DELETE' whereClause
    ;
createTable
    : 'CREATE' orReplace? temporary? 'TABLE' ifNotExists? tableName ('UUID' STRING)? onCluster?
      ( '(' tableElement (',' tableElement)* ','? ')' tableOption* ('AS' query)?
      | tableOption* 'AS' (query | tableName | tableFunction) tableOption*
      | tableOption*
      )
    ;
tableElement
    : 'CONSTRAINT' identifier ('CHECK' | 'ASSUME') expr
    | tableConstraint | columnDefinition | 'INDEX' identifier expr 'TYPE' expr ('GRANULARITY' NUMBER)? | 'PROJECTION' identifier '(' query ')' ;
columnConstraintExt
    : ('MATERIALIZED' | 'ALIAS' | 'EPHEMERAL') expr?
    | 'CODEC' '(' expr (',' expr)* ')'
    | 'TTL' expr
    ;
tableOption
    : 'ENGINE' '='? (functionCall | identifier)
    | 'ORDER' 'BY' expr
    | 'PRIMARY' 'KEY' expr
    | 'PARTITION' 'BY' expr
    | 'SAMPLE' 'BY' expr
    | 'TTL' ttlElement (',' ttlElement)*
    | 'SETTINGS' assignment (',' assignment)*
    | 'COMMENT' STRING
    ;
ttlElement
    : expr ('DELETE' | 'RECOMPRESS' 'CODEC' balanced | 'TO' ('DISK' | 'VOLUME') STRING)? ('WHERE' expr)?
      ('GROUP' 'BY' expr (',' expr)* ('SET' assignment (',' assignment)*)?)?
    ;
createView
    : 'CREATE' orReplace? 'MATERIALIZED'? 'VIEW' ifNotExists? tableName onCluster?
      ('TO' tableName)? ('(' tableElement (',' tableElement)* ')')? tableOption* 'POPULATE'? 'AS' query
    ;
alterTable : 'ALTER' 'TABLE' tableName onCluster? alterAction (',' alterAction)* ;
alterAction
    : 'ADD' 'COLUMN' ifNotExists? columnDefinition (('AFTER' identifier) | 'FIRST')?
    | 'DROP' 'COLUMN' ifExists? identifier
    | 'MODIFY' 'COLUMN' ifExists? columnDefinition
    | 'RENAME' 'COLUMN' ifExists? identifier 'TO' identifier
    | ('DROP' | 'DETACH' | 'ATTACH') 'PARTITION' ('ID' STRING | expr)
    | 'REPLACE' 'PARTITION' ('ID' STRING | 'ALL' | expr) 'FROM' tableName
    | 'MODIFY' ('ORDER' 'BY' expr | 'TTL' ttlElement (',' ttlElement)* | 'COMMENT' STRING)
    | 'ALTER' 'COLUMN' ifExists? identifier 'TYPE' dataType
    | 'COMMENT' 'COLUMN' identifier STRING
    ;

comparisonExt : '==' ;
concatOperator : '||' ;
binaryExt : '->' ;
likeExt : 'ILIKE' | 'REGEXP' ;
inTargetExt : primary ;
joinCondition : 'ON' expr | 'USING' (columnList | identifier (',' identifier)*) ;
columnList : '(' qualifiedName (',' qualifiedName)* ')' ;
postfixExt
    : '[' expr ']'
    | '.' NUMBER
    | '::' dataType
    | '?' expr ':' expr
    | 'IS' 'NOT'? 'DISTINCT' 'FROM' expr
    | 'GLOBAL' 'NOT'? 'IN' primary
    | 'APPLY' '(' expr ')'
    | '.' (identifier | ':' (DQ_TEXT | dataType) | '^' identifier)
    | '[' ']'
    ;
primaryExt
    : '[' (expr (',' expr)* ','?)? ']'
    | '{' identifier ':' dataType '}'
    | '{' (expr ':' expr (',' expr ':' expr)*)? '}'
    | 'COLUMNS' '(' STRING ')'
    | '(' expr 'AS' identifier ')'
    ;
tablePrimaryExt : '{' identifier ':' identifier '}' (tableAlias columnList?)? ;
selectItem
    : '*' starModifier*
    | qualifiedName '.' '*' starModifier*
    | expr alias?
    ;
starModifier
    : 'EXCEPT' ('(' (qualifiedName | STRING) (',' qualifiedName)* ')' | qualifiedName | STRING)
    | 'REPLACE' '(' expr 'AS' identifier (',' expr 'AS' identifier)* ')'
    | 'APPLY' '(' expr ')'
    ;
specialFunction
    : 'SUBSTRING' '(' expr ('FROM' expr ('FOR' expr)? | ',' expr (',' expr)?) ')'
    | 'TRIM' '(' ('BOTH' | 'LEADING' | 'TRAILING') expr 'FROM' expr ')'
    | 'POSITION' '(' expr 'IN' expr ')'
    | 'DATE_ADD' '(' unitName ',' expr ',' expr ')'
    ;
castFunction : 'CAST' ;
extractExpression : 'EXTRACT' '(' intervalUnit 'FROM' expr ')' ;
functionCall
    : functionName ('(' functionArguments? ')')? '(' functionArguments? ')' nullTreatment? overClause?
    ;
functionArguments
    : '*'
    | 'DISTINCT'? functionArg (',' functionArg)* (orderByClause | 'SETTINGS' assignment (',' assignment)*)?
    ;
functionArg : expr ('AS' identifier)? ;
literal
    : NUMBER | STRING | 'NULL' | 'TRUE' | 'FALSE' | HEREDOC
    | ('DATE' | 'TIMESTAMP') STRING
    | intervalLiteral
    | 'INF' | 'NAN'
    ;
intervalLiteral : 'INTERVAL' (expr intervalUnit | STRING) ;
quotedIdentifier : DQ_TEXT | BQ_TEXT ;
dataType
    : typeName ('(' (typeParameter (',' typeParameter)*)? ')')?
    ;
typeParameter : signedNumber | STRING | identifier dataType | dataType | identifier '=' signedNumber ;
functionKeywordExt : 'ANY' | 'ALL' | 'ARRAY' | 'EXISTS' | 'NOT' | 'INTERVAL' | 'FILTER' | 'IN' | 'EXTRACT' ;

nonReserved : aliasKeyword | operatorKeyword ;
alias : 'AS' identifier | IDENTIFIER | quotedIdentifier | aliasKeyword ;  // no operator words without AS
tableAlias : 'AS'? identifier ;  // `FROM t AND` is a table aliased AND; FINAL / SAMPLE follow it
aliasKeyword
    : nonReservedCore | 'USE' | 'DESCRIBE' | 'SHOW' | 'OPTIMIZE' | 'SYSTEM' | 'KILL' | 'GRANT'
    | 'REVOKE' | 'DETACH' | 'ATTACH' | 'EXCHANGE' | 'CHECK' | 'AST' | 'SYNTAX' | 'PIPELINE'
    | 'ESTIMATE' | 'TREE' | 'TOTALS' | 'FILL' | 'CLUSTER' | 'GRANULARITY' | 'PROJECTION' | 'ALIAS'
    | 'EPHEMERAL' | 'CODEC' | 'TTL' | 'ENGINE' | 'POPULATE' | 'AFTER' | 'MODIFY' | 'COLUMNS'
    | 'SUBSTRING' | 'TRIM' | 'POSITION' | 'DATE_ADD' | 'INF' | 'NAN' | 'TABLE' | 'FUNCTION'
    | 'TEMPORARY' | 'VALUES' | 'KEY' | 'PRIMARY' | 'LEADING' | 'TRAILING' | 'BOTH' | 'DATABASE'
    | 'VIEW' | 'TO' | 'DELETE' | 'UPDATE' | 'INSERT' | 'SELECT' | 'DISTINCT' | 'EXISTS' | 'CAST'
    | 'TRUE' | 'FALSE' | 'DEFAULT' | 'UUID' | 'DICTIONARY' | 'CLUSTER' | 'RECOMPRESS' | 'DISK'
    | 'VOLUME' | 'ID' | 'NULL' | 'CASE' | 'CREATE' | 'DROP' | 'ALTER' | 'IF' | 'REPLACE' | 'FOR'
    | 'ROWS' | 'RANGE' | 'SET' | 'EXPLAIN' | 'UNIQUE' | 'CHECK' | 'CONSTRAINT' | 'INDEX'
    ;
operatorKeyword
    : 'WINDOW' | 'SYNC' | 'ASSUME' | 'SOURCE' | 'LAYOUT' | 'LIFETIME' | 'INTERPOLATE' | 'STEP'
    | 'STALENESS' | 'PREWHERE' | 'SETTINGS' | 'FORMAT' | 'PASTE' | 'ASOF' | 'SEMI' | 'ANTI' | 'FINAL' | 'SAMPLE'
    | 'ILIKE' | 'REGEXP' | 'APPLY' | 'TOP' | 'QUALIFY' | 'ARRAY' | 'ALL' | 'ANY' | 'AND' | 'OR'
    | 'NOT' | 'LIKE' | 'IN' | 'IS' | 'BETWEEN' | 'WHEN' | 'THEN' | 'ELSE' | 'END' | 'WITH' | 'DESC'
    | 'ASC' | 'CROSS' | 'INNER' | 'OUTER' | 'FULL' | 'RIGHT' | 'LEFT' | 'NATURAL' | 'GLOBAL'
    | 'LOCAL' | 'COLLATE' | 'ON' | 'USING' | 'ESCAPE' | 'OVER' | 'FILTER' | 'INTO'
    ;

fragment STRING_CHAR : ~['\\] | '\'\'' | '\\' . ;
DQ_TEXT : '"' (~["\\] | '""' | '\\' .)* '"' ;
BQ_TEXT : '`' (~[`\\] | '``' | '\\' .)* '`' ;
HEREDOC : '$' [A-Z0-9_]* '$' .*? '$' [A-Z0-9_]* '$' ;
HASH_COMMENT : ('#' | '#!') ~[\r\n]* -> channel(HIDDEN) ;
fragment IDENT_PART : [A-Z_0-9$] | [\u0080-\uFFFE] ;
