// Parser of the KD kernel language (spec sections 4-9, 12-15).
// Contextual words (`out inout grid devices threads step dma regular ptx
// volatile clobbers fallback type fn sequential block at`) are plain IDENTs
// here; the AST builder checks their spelling so that they stay usable as
// ordinary names elsewhere.
parser grammar KDParser;

options { tokenVocab = KDLexer; }

file : topItem* EOF;

topItem
    : includeDecl
    | constDecl
    | kernelDecl
    | typeDecl
    | fnDecl
    ;

includeDecl : INCLUDE STRING SEMI;
constDecl   : CONST IDENT ASSIGN expr SEMI;
// `type T = bf16;` (the first IDENT is the word `type`).
typeDecl    : typeWord=IDENT IDENT ASSIGN typeName SEMI;

// `fn name<T: type, M>(params) -> result { body }` (the first IDENT is `fn`).
fnDecl
    : fnWord=IDENT IDENT (LT generic (COMMA generic)* COMMA? GT)?
      LPAREN (fnParam (COMMA fnParam)* COMMA?)? RPAREN (ARROW resultType)? block
    ;
generic : IDENT (COLON kindWord=IDENT)?;

// `r: in f32[M, N] @global`, `t: f32[M, N]`, `s: sem dma[N]`, `n: i32`.
fnParam
    : IDENT COLON IN? tileType memSpace blockSpec?         # fnRefParam
    | IDENT COLON tileType                                 # fnTileParam
    | IDENT COLON SEM IDENT (LBRACK expr RBRACK)?          # fnSemParam
    | IDENT COLON typeName                                 # fnScalarParam
    ;
resultType
    : tileType
    | typeName
    | LPAREN resultType (COMMA resultType)* COMMA? RPAREN
    ;

kernelDecl
    : KERNEL IDENT LPAREN (param (COMMA param)* COMMA?)? RPAREN kernelAttr* block
    ;

// `grid(...)`, `grid(i: M / BM, sequential k: K / BK)` (section 13),
// `devices(N)`, `devices(x: 2, y: 4)`, `threads(T)`. `sequential` is the
// first IDENT only when a name and `:` follow it.
kernelAttr : IDENT LPAREN (attrArg (COMMA attrArg)* COMMA?)? RPAREN;
attrArg : (seqWord=IDENT? axisName=IDENT COLON)? expr;

// `name: in f32[M, K] @global`, `name: out ...`, `name: f32`, each with an
// optional block spec (section 13; the checker refuses one on a scalar).
param
    : IDENT COLON paramMode=(IN | IDENT) tileType memSpace blockSpec?   # refParam
    | IDENT COLON typeName blockSpec?                               # scalarParam
    ;
// `block [BM, BK] at (i, k)` (the IDENTs are the words `block` and `at`).
blockSpec
    : blockWord=IDENT LBRACK (expr (COMMA expr)* COMMA?)? RBRACK
      atWord=IDENT LPAREN (expr (COMMA expr)* COMMA?)? RPAREN
    ;

dtype : BOOL | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64;
// A dtype or a name that the checker resolves to one (section 14).
typeName : dtype | IDENT;
tileType : typeName LBRACK (expr (COMMA expr)* COMMA?)? RBRACK;
// In argument lists only a dtype keyword starts a type (`zeros(f32[8])`):
// `T[8]` there parses as an index and the checker reads it as a type.
dtypeTile : dtype LBRACK (expr (COMMA expr)* COMMA?)? RBRACK;
memSpace : AT IDENT;

block : LBRACE stmt* RBRACE;

stmt
    : SCRATCH IDENT COLON tileType memSpace SEMI                       # scratchStmt
    | SEM IDENT (LBRACK expr (COMMA expr)? RBRACK)? COLON IDENT SEMI   # semStmt
    | LET IDENT ASSIGN expr SEMI                                       # letStmt
    | LET LPAREN IDENT (COMMA IDENT)* COMMA? RPAREN ASSIGN expr SEMI   # letTupleStmt
    | VAR IDENT ASSIGN expr SEMI                                       # varStmt
    | FOR IDENT IN expr DOTDOT expr (IDENT expr)? block                # forStmt
    | WHILE expr block                                                 # whileStmt
    | RETURN (expr | LPAREN expr (COMMA expr)+ COMMA? RPAREN)? SEMI    # returnStmt
    | ifChain                                                          # ifStmt
    | ASSERT LPAREN expr (COMMA STRING)? COMMA? RPAREN SEMI            # assertStmt
    | expr op=(ASSIGN | PLUS_ASSIGN | MINUS_ASSIGN | STAR_ASSIGN) expr SEMI  # assignStmt
    | expr SEMI                                                        # exprStmt
    | block                                                            # blockStmt
    ;

ifChain : IF expr block (ELSE (ifChain | block))?;

// Precedence, tightest first (spec section 9). ANTLR gives the earlier
// alternative the higher precedence; binary operators are left-associative.
expr
    : primary                                              # primaryExpr
    | expr LBRACK (index (COMMA index)* COMMA?)? RBRACK     # indexExpr
    | op=(MINUS | BANG | TILDE) expr                       # unaryExpr
    | expr op=(STAR | SLASH | PERCENT) expr                # binaryExpr
    | expr op=(PLUS | MINUS) expr                          # binaryExpr
    | expr op=(SHL | SHR) expr                             # binaryExpr
    | expr op=AMP expr                                     # binaryExpr
    | expr op=CARET expr                                   # binaryExpr
    | expr op=PIPE expr                                    # binaryExpr
    | expr op=(LT | LE | GT | GE) expr                     # binaryExpr
    | expr op=(EQ | NE) expr                               # binaryExpr
    | expr op=AND expr                                     # binaryExpr
    | expr op=OR expr                                      # binaryExpr
    | <assoc=right> expr QUESTION expr COLON expr          # ternaryExpr
    ;

primary
    : INT                                                  # intLiteral
    | FLOAT                                                # floatLiteral
    | (TRUE | FALSE)                                       # boolLiteral
    | (INF | NAN)                                          # specialFloatLiteral
    | callee=(IDENT | BOOL | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64)
        LPAREN (arg (COMMA arg)* COMMA?)? RPAREN           # callExpr
    | IDENT                                                # nameExpr
    | LPAREN expr RPAREN                                   # parenExpr
    | asmBlock                                             # asmExpr
    ;

// A keyword's value may be a dtype name (`dtype=bf16`, spec section 9); the
// checker rejects it for every other keyword, and unknown keywords too.
arg
    : IDENT ASSIGN (dtype | deviceCoords | expr)           # keywordArg
    | dtypeTile                                            # typeArg
    | LBRACK (expr (COMMA expr)* COMMA?)? RBRACK            # shapeArg
    | expr                                                 # positionalArg
    ;

// `device=(d0, d1)` or `device=(y: e)` (section 15): one coordinate per mesh
// axis, or some of them by name. `(e)` alone stays a parenthesised expression.
deviceCoords
    : LPAREN meshCoord (COMMA meshCoord)+ COMMA? RPAREN
    | LPAREN namedCoord COMMA? RPAREN
    ;
meshCoord : namedCoord | expr;
namedCoord : IDENT COLON expr;

// `e`, `:`, `a:b`, `ds(start, size)` (a call), `...`.
index
    : ELLIPSIS                                             # ellipsisIndex
    | COLON                                                # fullIndex
    | expr COLON expr                                      # sliceIndex
    | expr                                                 # scalarIndex
    ;

// asm ptx [volatile] (INPUTS) -> (OUTPUTS) [clobbers(...)] { STRINGS } [fallback { ... }]
asmBlock
    : ASM lang=IDENT (volatileWord=IDENT)?
      LPAREN (asmInput (COMMA asmInput)* COMMA?)? RPAREN
      ARROW LPAREN (asmOutput (COMMA asmOutput)* COMMA?)? RPAREN
      (clobberWord=IDENT LPAREN (STRING (COMMA STRING)* COMMA?)? RPAREN)?
      LBRACE STRING+ RBRACE
      (fallbackWord=IDENT block)?
    ;

asmInput  : IDENT COLON dtype ASSIGN expr;
asmOutput : IDENT COLON dtype;
