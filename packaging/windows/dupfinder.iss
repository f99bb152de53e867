; Inno Setup script: the Windows installer of the onedir bundle (dist\dupfinder).
; Built by the CI workflow (.github/workflows/ci.yml) with: iscc /DVersion=X.Y.Z packaging\windows\dupfinder.iss
; Installs per user by default (no administrator needed), adds a Start menu entry, an
; optional desktop icon, "dupfinder" on the user's PATH, and an uninstaller.

#ifndef Version
  #define Version "0.0.0"
#endif

[Setup]
AppId={{6C1D2E8A-6B1F-4E0B-9F55-2D7A8E4C9B31}
AppName=dupfinder
AppVersion={#Version}
AppPublisher=dupfinder developers
AppPublisherURL=https://github.com/dupfinder/dupfinder
DefaultDirName={autopf}\dupfinder
DefaultGroupName=dupfinder
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
LicenseFile=..\..\LICENSE
OutputDir=..\..\dist
OutputBaseFilename=dupfinder-{#Version}-windows-x86_64-setup
SetupIconFile=..\..\resources\icons\dupfinder.ico
UninstallDisplayIcon={app}\dupfinder-gui.exe
Compression=lzma2/max
SolidCompression=yes
ChangesEnvironment=yes
WizardStyle=modern

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Add dupfinder to the PATH (for the command line)"; Flags: unchecked

[Files]
Source: "..\..\dist\dupfinder\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\dupfinder"; Filename: "{app}\dupfinder-gui.exe"
Name: "{group}\Third-party notices"; Filename: "{app}\THIRD-PARTY-NOTICES.txt"
Name: "{group}\{cm:UninstallProgram,dupfinder}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\dupfinder"; Filename: "{app}\dupfinder-gui.exe"; Tasks: desktopicon

[Registry]
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\dupfinder-gui.exe"; Description: "{cm:LaunchProgram,dupfinder}"; Flags: nowait postinstall skipifsilent

[Code]
function NeedsAddPath(Dir: string): boolean;
var
  Path: string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Path) then
  begin
    Result := True;
    exit;
  end;
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Path) + ';') = 0;
end;
